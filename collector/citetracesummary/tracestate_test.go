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

// TestTraceListKeepsActivityOrder: the least recently active trace is at the front through pushes, moves and
// removals at either end and in the middle.
func TestTraceListKeepsActivityOrder(t *testing.T) {
	var l traceList
	states := make([]*traceState, 5)
	for i := range states {
		states[i] = newTraceState([16]byte{byte(i)}, 0, "")
		l.pushBack(states[i])
	}
	order := func() []byte {
		var out []byte
		for s := l.front(); s != nil; s = s.next {
			out = append(out, s.id[0])
		}
		return out
	}
	l.moveToBack(states[0]) // 1 2 3 4 0
	l.moveToBack(states[0]) // unchanged
	l.remove(states[3])     // 1 2 4 0
	l.moveToBack(states[2]) // 1 4 0 2
	l.remove(states[1])     // 4 0 2
	if got := string(order()); got != "\x04\x00\x02" || l.len() != 3 || l.tail != states[2] {
		t.Fatalf("order %v, len %d", order(), l.len())
	}
	for l.len() > 0 {
		l.remove(l.front())
	}
	if l.head != nil || l.tail != nil {
		t.Fatal("an empty list keeps an end")
	}
}
