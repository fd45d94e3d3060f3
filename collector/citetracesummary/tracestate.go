// A trace in flight: its state, the set of its span ids, and the list of traces by last activity.
package citetracesummary

type runEntry struct {
	key string
	acc *accumulator
}

// traceState is one trace in flight. Its first run, its first root and its first span ids live in the state
// itself, and it is its own element of the LRU list: one allocation per trace instead of five.
type traceState struct {
	id         [16]byte
	runs       []runEntry
	roots      []*heldRoot
	spanIDs    idSet
	touched    float64
	due        float64
	hasDue     bool
	service    string
	urls       int
	held       int
	prev, next *traceState // the LRU list
	runsBuf    [1]runEntry
	rootsBuf   [1]*heldRoot
}

func newTraceState(id [16]byte, now float64, service string) *traceState {
	s := &traceState{id: id, touched: now, service: service}
	s.runs, s.roots = s.runsBuf[:0], s.rootsBuf[:0]
	return s
}

// idSet is a trace's span ids (for duplicates and the span cap): a slice scanned linearly while the trace is small,
// as nearly all are, and a map once it passes idSetSmall ids, so a typical trace costs no allocation of its own.
type idSet struct {
	small [][8]byte
	big   map[[8]byte]struct{}
	buf   [16][8]byte // small's first backing array (an idSet lives in its traceState and is never copied)
}

const idSetSmall = 32

func (s *idSet) has(id [8]byte) bool {
	if s.big != nil {
		_, ok := s.big[id]
		return ok
	}
	for _, x := range s.small {
		if x == id {
			return true
		}
	}
	return false
}

// add records an id the caller checked is not there yet.
func (s *idSet) add(id [8]byte) {
	if s.big != nil {
		s.big[id] = struct{}{}
		return
	}
	if len(s.small) < idSetSmall {
		if s.small == nil {
			s.small = s.buf[:0]
		}
		s.small = append(s.small, id)
		return
	}
	s.big = make(map[[8]byte]struct{}, 2*idSetSmall)
	for _, x := range s.small {
		s.big[x] = struct{}{}
	}
	s.big[id] = struct{}{}
	s.small = nil
}

func (s *idSet) len() int {
	if s.big != nil {
		return len(s.big)
	}
	return len(s.small)
}

func (s *traceState) run(key string) *accumulator {
	for _, r := range s.runs {
		if r.key == key {
			return r.acc
		}
	}
	return nil
}

func (s *traceState) popRun(key string) *accumulator {
	for i, r := range s.runs {
		if r.key == key {
			s.runs = append(s.runs[:i:i], s.runs[i+1:]...)
			return r.acc
		}
	}
	return nil
}

// traceList is the traces in flight, least recently active first. It is intrusive (the states are its elements)
// so a trace costs no list element of its own.
type traceList struct {
	head, tail *traceState
	n          int
}

func (l *traceList) len() int { return l.n }

func (l *traceList) front() *traceState { return l.head }

func (l *traceList) pushBack(s *traceState) {
	s.prev, s.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = s
	} else {
		l.head = s
	}
	l.tail = s
	l.n++
}

func (l *traceList) remove(s *traceState) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		l.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		l.tail = s.prev
	}
	s.prev, s.next = nil, nil
	l.n--
}

func (l *traceList) moveToBack(s *traceState) {
	if l.tail == s {
		return
	}
	l.remove(s)
	l.pushBack(s)
}
