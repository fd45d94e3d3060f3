package citetracesummary

import (
	"fmt"
	"testing"
)

// TestDistinctCitationsPastTheScan: each url key once, first URL kept, in order, below and above the point where
// the scan gives way to a map (the forms differ, the keys repeat).
func TestDistinctCitationsPastTheScan(t *testing.T) {
	for n := 0; n <= 3*citeScan; n++ {
		var urls []string
		for i := 0; i < n; i++ {
			forms := []string{"https://a.example/p/%d", "http://a.example/p/%d/", "https://a.example/p/%d?utm_source=x"}
			urls = append(urls, fmt.Sprintf(forms[i%3], i%(citeScan+5)))
		}
		got := distinctCitations(urls)
		seen := map[string]bool{}
		var want []cite
		for _, u := range urls {
			if k := keyOf(u); !seen[k] {
				seen[k] = true
				want = append(want, cite{k, u})
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d citations: %d distinct, want %d", n, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d citations: #%d is %v, want %v", n, i, got[i], want[i])
			}
		}
	}
}

// TestKeyListIsASetOnceDistinct: repeats dropped, membership exact, the count of repeats recoverable.
func TestKeyListIsASetOnceDistinct(t *testing.T) {
	var l keyList
	for _, k := range []string{"b", "a", "b", "c", "a", "b"} {
		l.add(k, 2)
	}
	added := len(l)
	set := l.distinct()
	if fmt.Sprint(set) != "[a b c]" || added-len(set) != 3 {
		t.Fatalf("distinct = %v (%d repeats), want [a b c] and 3", set, added-len(set))
	}
	if !set.has("b") || set.has("d") || set.has("") {
		t.Fatal("membership wrong")
	}
	var empty keyList
	if len(empty.distinct()) != 0 || empty.has("a") {
		t.Fatal("an empty list is an empty set")
	}
}
