// The tail sampler's probabilistic hash (citetrace/summary/_fnv.py): FNV-1a-64 over salt || trace id, kept when
// the hash is at most MaxUint64 * percent / 100 computed as the tail sampler does, with big.Float.
package citetracesummary

import (
	"hash/fnv"
	"math"
	"math/big"
)

// sampleThreshold is the tail sampler's calculateThreshold(percent / 100).
func sampleThreshold(percent float64) uint64 {
	ratio := percent / 100
	if ratio <= 0 {
		return 0
	}
	boundary := new(big.Float).SetUint64(math.MaxUint64)
	res, _ := boundary.Mul(boundary, big.NewFloat(ratio)).Uint64()
	return res
}

// sampleHash is sample_hash(trace_id, salt).
func sampleHash(traceID [16]byte, salt string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(salt))
	_, _ = h.Write(traceID[:])
	return h.Sum64()
}
