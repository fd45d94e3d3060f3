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

// TestKeySetCountsAndProbesExactly: distinct counts and membership of keySet equal a map's, with repeats and
// collisions, in the table (up to setSlots/2 keys) and past it (a map).
func TestKeySetCountsAndProbesExactly(t *testing.T) {
	for _, n := range []int{0, 1, 2, setScan, setScan + 1, 15, 16, 17, 100, setSlots / 2, setSlots/2 + 1, 3 * setSlots} {
		var l keyList
		want := map[string]bool{}
		for i := 0; i < n; i++ {
			k := fmt.Sprintf("site%d.example/p/%d", i%7, (i*31)%(n/2+1))
			l.add(k, 4)
			want[k] = true
		}
		var s keySet
		s.build(l)
		if s.len() != len(want) {
			t.Fatalf("%d keys: %d distinct, want %d", n, s.len(), len(want))
		}
		for k := range want {
			if !s.has(k) {
				t.Fatalf("%d keys: %q missing", n, k)
			}
		}
		for _, k := range []string{"", "site1.example/p/", "other.example/p/1", "site0.example/p/0x"} {
			if s.has(k) != want[k] {
				t.Fatalf("%d keys: has(%q) = %v", n, k, s.has(k))
			}
		}
	}
}
