// The run's sets of url keys and query keys, made once at finish from the lists the accumulator appends to.
package citetracesummary

import "hash/maphash"

// setSlots is the size of a keySet's table: up to setSlots/2 keys need no allocation (a run has tens).
const setSlots = 512

// setScan: up to this many keys, the set is the list itself, scanned (fewer comparisons than hashing them all).
const setScan = 8

var setSeed = maphash.MakeSeed()

// keySet is a keyList made a set: the number of distinct keys and membership. Up to setSlots/2 keys it is an
// open-addressing table of indices into the list, on the caller's stack: sorting the list instead cost more than
// all the rest of finishing a run (string swaps with the garbage collector's write barriers), and a map per set
// is an allocation or more per run. Past that, a map.
type keySet struct {
	keys  keyList
	slots [setSlots]uint16 // 1 + the index of a key in keys; 0 is an empty slot
	mask  uint64
	big   map[string]struct{}
	n     int
}

// build makes the set of keys (once).
func (s *keySet) build(keys keyList) {
	s.keys = keys
	if len(keys) <= setScan {
		for i, k := range keys {
			if !keys[:i].contains(k) {
				s.n++
			}
		}
		return
	}
	if len(keys) > setSlots/2 {
		s.big = make(map[string]struct{}, len(keys))
		for _, k := range keys {
			s.big[k] = struct{}{}
		}
		s.n = len(s.big)
		return
	}
	size := uint64(16)
	for size < 2*uint64(len(keys)) {
		size *= 2
	}
	s.mask = size - 1
	for i, k := range keys {
		slot, found := s.find(k)
		if !found {
			s.slots[slot] = uint16(i + 1)
			s.n++
		}
	}
}

// find is the slot holding k, or the empty slot where it would go.
func (s *keySet) find(k string) (slot uint64, found bool) {
	slot = maphash.String(setSeed, k) & s.mask
	for {
		j := s.slots[slot]
		if j == 0 {
			return slot, false
		}
		if s.keys[j-1] == k {
			return slot, true
		}
		slot = (slot + 1) & s.mask
	}
}

// len is the number of distinct keys.
func (s *keySet) len() int { return s.n }

// has is membership.
func (s *keySet) has(k string) bool {
	if len(s.keys) <= setScan {
		return s.keys.contains(k)
	}
	if s.big != nil {
		_, ok := s.big[k]
		return ok
	}
	_, found := s.find(k)
	return found
}

func (l keyList) contains(k string) bool {
	for _, x := range l {
		if x == k {
			return true
		}
	}
	return false
}
