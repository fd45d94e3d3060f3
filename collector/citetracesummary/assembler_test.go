package citetracesummary

import "testing"

// TestIDSetPastSmall: the span-id set answers the same before and after it moves from its slice to a map.
func TestIDSetPastSmall(t *testing.T) {
	var s idSet
	for i := 0; i < 3*idSetSmall; i++ {
		id := [8]byte{byte(i), byte(i >> 8), 9}
		if s.has(id) {
			t.Fatalf("id %d reported before it was added", i)
		}
		s.add(id)
		if !s.has(id) || s.len() != i+1 {
			t.Fatalf("after adding id %d: has=%v len=%d", i, s.has(id), s.len())
		}
	}
	for i := 0; i < 3*idSetSmall; i++ {
		if !s.has([8]byte{byte(i), byte(i >> 8), 9}) {
			t.Fatalf("id %d lost when the set grew", i)
		}
	}
	if s.has([8]byte{1, 2, 3}) {
		t.Fatal("an id never added is reported")
	}
}
