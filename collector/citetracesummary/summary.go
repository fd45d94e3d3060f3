// The pure summary (citetrace/summary/_summarize.py): a run's tool spans in, one TraceSummary out. The
// accumulator holds counters and URL sets, never spans; finish turns them into the summary.
package citetracesummary

import (
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/cases"

	"github.com/citetrace/citetracesummary/internal/names"
)

// Thresholds is summary._model.Thresholds.
type Thresholds struct {
	MaxSearches    int
	MaxFailedReads int
	SamplePercent  float64
	SampleSalt     string
	threshold      uint64
}

func (t *Thresholds) init() { t.threshold = sampleThreshold(t.SamplePercent) }

// Summary is summary._model.TraceSummary.
type Summary struct {
	Agent                string
	RunID                string
	TraceID              string
	Searches             int
	Reads                int
	RepeatQueries        int
	EmptySearches        int
	FailedReads          int
	RateLimited          int
	DistinctURLsSeen     int
	Citations            int
	UncitedFromRetrieval int
	CitedNotFetched      int
	PagesFromSearch      int
	UnreportedSearches   int
	SlowestMs            float64
	TotalMs              float64
	FailureReasons       []string
	Failed               bool
	Keep                 bool
	UncitedURLs          []string
	UnfetchedURLs        []string
}

// spanView is what the summary reads of a span: its checked attributes, times and status.
type spanView struct {
	attrs       attrs
	startNs     uint64
	endNs       uint64
	statusError bool
}

// toolStatus is tool_status: a known citetrace.tool.status, else error if the span errored, else ok.
func toolStatus(a *attrs, statusError bool) string {
	if isToolStatus(a.status) {
		return a.status
	}
	if statusError {
		return names.StatusError
	}
	return names.StatusOk
}

func isToolStatus(s string) bool {
	return s == names.StatusOk || s == names.StatusEmpty || s == names.StatusError || s == names.StatusRateLimited
}

var folder = cases.Fold()

// foldQuery is fold_query: case-folded, whitespace collapsed.
func foldQuery(text string) string { return strings.Join(pyFields(folder.String(text)), " ") }

// accumulator is RunAccumulator.
type accumulator struct {
	searches, reads, emptySearches, failedReads, rateLimited int
	retries                                                  int // searches of a query right after its attempt failed
	slowestNs, firstStart, lastEnd                           int64
	agent, runID                                             string
	// The query keys and the URL keys (taken as each URL is added) are lists, appended to and made sets once, in
	// finish (keySet). A map per set cost four allocations per run and more as they grew, for sets
	// that are only counted and probed at the end. Duplicates stay in the lists until then; they are bounded by
	// the per-trace URL cap (every URL is counted against it, repeated or not) and the span cap.
	queries keyList
	results keyList
	fetched keyList
	pages   keyList // page texts that came with search results (also in fetched)
	failedQ keyList // query keys whose latest attempt failed (error, rate_limited): the next one is a retry
	// every search attempt, in arrival order: when one arrives before an attempt that ended earlier (an export
	// retried or re-routed), finish replays them in the order they ended (RunAccumulator._attempts)
	attempts   []searchAttempt
	unordered  bool
	redirects  keyList // (url.full key, final URL key) of each redirected fetch, flattened
	unreported int     // provider-side searches whose sources nobody reported (RunAccumulator.unreported)
}

// accumulators are reused with their lists' capacity once a run is finished: without it every run allocated an
// accumulator and its three or four lists (most of the connector's garbage per run).
var accumulators = sync.Pool{New: func() any { return &accumulator{} }}

func newAccumulator() *accumulator { return accumulators.Get().(*accumulator) }

// maxPooledKeys: a list that grew past this (a run with thousands of URLs) is dropped, not kept for reuse.
const maxPooledKeys = 1024

// release gives a finished accumulator back for reuse (nothing may hold it after finish).
func (acc *accumulator) release() {
	lists := [6]keyList{acc.queries, acc.results, acc.fetched, acc.pages, acc.failedQ, acc.redirects}
	for i, l := range lists {
		clear(l) // the keys go; the capacity stays
		lists[i] = l[:0]
		if cap(l) > maxPooledKeys {
			lists[i] = nil
		}
	}
	attempts := acc.attempts[:0]
	if cap(attempts) > maxPooledKeys {
		attempts = nil
	}
	clear(acc.attempts)
	*acc = accumulator{queries: lists[0], results: lists[1], fetched: lists[2], pages: lists[3], failedQ: lists[4],
		redirects: lists[5], attempts: attempts}
	accumulators.Put(acc)
}

// keyList is a set built by appending; finish makes it a keySet.
type keyList []string

// add appends a key; the first add sizes the list for size keys (a typical run's count, so it rarely regrows).
func (l *keyList) add(key string, size int) {
	if *l == nil {
		*l = make(keyList, 0, size)
	}
	*l = append(*l, key)
}

// The first capacity of each list: a run's search results, fetched pages, queries and pages from search.
const (
	resultsSize = 32
	fetchedSize = 16
	queriesSize = 8
	pagesSize   = 8
)

// searchAttempt is one search of a query: (end, start, failed, key) orders attempts as Python's tuples do.
type searchAttempt struct {
	end, start int64
	failed     bool
	key        string
}

// before is the tuple order (end, start, failed, key) of RunAccumulator._attempts.
func (a searchAttempt) before(b searchAttempt) bool {
	if a.end != b.end {
		return a.end < b.end
	}
	if a.start != b.start {
		return a.start < b.start
	}
	if a.failed != b.failed {
		return !a.failed
	}
	return a.key < b.key
}

// repeatsInEndOrder is RunAccumulator._repeats_in_end_order: the attempts replayed in the order they ended.
func (acc *accumulator) repeatsInEndOrder() int {
	sorted := slices.Clone(acc.attempts)
	slices.SortFunc(sorted, func(a, b searchAttempt) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	seen := map[string]bool{}
	failing := map[string]bool{}
	repeats := 0
	for _, a := range sorted {
		if seen[a.key] {
			if !failing[a.key] {
				repeats++
			}
		} else {
			seen[a.key] = true
		}
		failing[a.key] = a.failed
	}
	return repeats
}

// attempt notes one search of qkey: right after a failed attempt of the same query it is a retry, not a repeat
// (RunAccumulator._failed_queries). The list holds only the queries failing now: a few keys, scanned.
func (acc *accumulator) attempt(qkey string, failed bool) {
	l := acc.failedQ
	for i, k := range l {
		if k == qkey {
			acc.retries++
			if !failed {
				l[i] = l[len(l)-1]
				acc.failedQ = l[:len(l)-1]
			}
			return
		}
	}
	if failed {
		acc.failedQ.add(qkey, queriesSize)
	}
}

// add counts one tool span (the caller checked citetrace.tool.kind).
func (acc *accumulator) add(s *spanView) {
	a := &s.attrs
	start, end := int64(s.startNs), int64(s.endNs)
	if start != 0 && (acc.firstStart == 0 || start < acc.firstStart) {
		acc.firstStart = start
	}
	if end > acc.lastEnd {
		acc.lastEnd = end
	}
	status := toolStatus(a, s.statusError)
	if d := end - start; d > acc.slowestNs {
		acc.slowestNs = d
	}
	if acc.agent == "" && a.agent != "" {
		acc.agent = a.agent
	}
	if acc.runID == "" && a.runID != "" {
		acc.runID = a.runID
	}
	if status == names.StatusRateLimited {
		acc.rateLimited++
	}
	if a.kind == names.ToolKindSearch {
		acc.searches++
		if status == names.StatusEmpty {
			acc.emptySearches++
		}
		qkey, has := a.queryHash, a.queryHash != ""
		if !has && a.hasQueryText {
			qkey, has = "text:"+foldQuery(a.queryText), true
		}
		if has {
			acc.queries.add(qkey, queriesSize) // a repeat is counted in finish: queries added less distinct queries
			failed := status == names.StatusError || status == names.StatusRateLimited
			at := searchAttempt{end: end, start: start, failed: failed, key: qkey}
			if n := len(acc.attempts); n > 0 && at.before(acc.attempts[n-1]) {
				acc.unordered = true
			}
			if acc.attempts == nil {
				acc.attempts = make([]searchAttempt, 0, queriesSize)
			}
			acc.attempts = append(acc.attempts, at)
			acc.attempt(qkey, failed)
		}
		for i := range a.urlsReturned.len() {
			acc.results.add(urlKey(a.urlsReturned.at(i)), resultsSize)
		}
		if a.hasPages {
			for i := range a.pagesReturned.len() {
				k := urlKey(a.pagesReturned.at(i))
				acc.fetched.add(k, fetchedSize)
				acc.pages.add(k, pagesSize)
			}
		}
		if a.hasSourcesReported || a.hasContentReturned {
			if a.hasSourcesReported && !a.sourcesReported {
				acc.unreported++
			}
			if a.hasContentReturned && a.contentReturned && a.hasURLsReturned {
				for i := range a.urlsReturned.len() {
					acc.fetched.add(urlKey(a.urlsReturned.at(i)), fetchedSize)
				}
			}
		}
		return
	}
	acc.reads++
	if status != names.StatusOk {
		acc.failedReads++
	}
	if a.urlFull != "" {
		k := urlKey(a.urlFull)
		acc.fetched.add(k, fetchedSize)
		if a.urlFinal != "" { // a redirect: the final URL was read
			final := urlKey(a.urlFinal)
			acc.fetched.add(final, fetchedSize)
			acc.redirects.add(k, 2)
			acc.redirects.add(final, 2)
		}
	}
	// a fetch of several URLs in one call: each URL fetched, as url.full is
	for i := range a.pagesReturned.len() {
		acc.fetched.add(urlKey(a.pagesReturned.at(i)), fetchedSize)
	}
}

// cite is a citation with its url key.
type cite struct{ key, url string }

// citeScan: up to this many distinct citations, a repeat is found by scanning them (a run cites a few pages);
// past it, by a map.
const citeScan = 16

// distinctCitations are the citations, each url key once, in order (the first URL of a key is kept).
func distinctCitations(citations []string) []cite {
	cited := make([]cite, 0, len(citations))
	var seen map[string]struct{}
	for _, u := range citations {
		k := urlKey(u)
		if seen != nil {
			if _, dup := seen[k]; dup {
				continue
			}
			seen[k] = struct{}{}
		} else if slices.ContainsFunc(cited, func(c cite) bool { return c.key == k }) {
			continue
		}
		cited = append(cited, cite{k, u})
		if seen == nil && len(cited) > citeScan {
			seen = make(map[string]struct{}, 2*len(cited))
			for _, c := range cited {
				seen[c.key] = struct{}{}
			}
		}
	}
	return cited
}

// rootView is what finish reads of a run root. It is all a held root keeps of the span's attributes, so a
// root waiting for its grace period holds a few words, not the whole attrs.
type rootView struct {
	citations      []string
	agent, runID   string
	agentError     bool // the span's status is an error, or it has error.type
	startNs, endNs uint64
	// the agent's own counts (citetrace.summary.searches/reads), -1 when the root carries none
	agentSearches, agentReads int64
}

func newRootView(s *spanView) rootView {
	v := rootView{citations: s.attrs.citations, agent: s.attrs.agent, runID: s.attrs.runID,
		agentError: s.statusError || s.attrs.hasErrorType, startNs: s.startNs, endNs: s.endNs,
		agentSearches: -1, agentReads: -1}
	if s.attrs.hasAgentSearches {
		v.agentSearches = s.attrs.agentSearches
	}
	if s.attrs.hasAgentReads {
		v.agentReads = s.attrs.agentReads
	}
	return v
}

// incomplete is serve's _incomplete: the agent's own summary on the root (which saw every span) counts more
// searches or reads than this accumulator took, so the rest of the run went to another summarizer (a restart, a
// resize) or was refused by a cap.
func (v *rootView) incomplete(acc *accumulator) bool {
	return (v.agentSearches >= 0 && v.agentSearches > int64(acc.searches)) ||
		(v.agentReads >= 0 && v.agentReads > int64(acc.reads))
}

// redirectOfResult: key is the final URL of a redirected fetch whose url.full a search returned (it stands for
// that result: RunAccumulator.finish's retrieved).
func (acc *accumulator) redirectOfResult(results *keySet, key string) bool {
	r := acc.redirects
	for i := 0; i+1 < len(r); i += 2 {
		if r[i+1] == key && results.has(r[i]) {
			return true
		}
	}
	return false
}

// finish is RunAccumulator.finish(trace_id, root=root, citations=None, ...).
func (acc *accumulator) finish(traceID [16]byte, root *rootView, th *Thresholds, defaultAgent string) Summary {
	var citations []string
	if root != nil {
		citations = root.citations
	}
	cited := distinctCitations(citations)
	var queries, resultKeys, fetchedKeys, pages keySet
	queries.build(acc.queries)
	resultKeys.build(acc.results)
	fetchedKeys.build(acc.fetched)
	pages.build(acc.pages)
	repeatQueries := len(acc.queries) - queries.len() - acc.retries
	if acc.unordered {
		repeatQueries = acc.repeatsInEndOrder()
	}
	uncited, unfetched := []string{}, []string{}
	if acc.unreported == 0 {
		for _, c := range cited {
			if !resultKeys.has(c.key) && !acc.redirectOfResult(&resultKeys, c.key) {
				uncited = append(uncited, c.url)
			}
			if !fetchedKeys.has(c.key) {
				unfetched = append(unfetched, c.url)
			}
		}
	}
	agentError := root != nil && root.agentError
	reasons := []string{}
	if len(uncited) > 0 {
		reasons = append(reasons, names.ReasonUncitedUrl)
	}
	if len(unfetched) > 0 {
		reasons = append(reasons, names.ReasonCitedNotFetched)
	}
	if acc.emptySearches > 0 {
		reasons = append(reasons, names.ReasonEmptySearch)
	}
	if acc.failedReads > th.MaxFailedReads {
		reasons = append(reasons, names.ReasonFailedReads)
	}
	if acc.searches > th.MaxSearches {
		reasons = append(reasons, names.ReasonTooManySearches)
	}
	if acc.rateLimited > 0 {
		reasons = append(reasons, names.ReasonRateLimited)
	}
	if agentError {
		reasons = append(reasons, names.ReasonAgentError)
	}
	failed := len(reasons) > 0
	keep := failed || sampleHash(traceID, th.SampleSalt) <= th.threshold
	var totalNs int64
	if root != nil {
		if d := int64(root.endNs) - int64(root.startNs); d > 0 {
			totalNs = d
		}
	} else if acc.firstStart != 0 && acc.lastEnd > acc.firstStart {
		totalNs = acc.lastEnd - acc.firstStart
	}
	agent, runID := "", ""
	if root != nil {
		agent, runID = root.agent, root.runID
	}
	if agent == "" {
		agent = acc.agent
	}
	if agent == "" {
		agent = defaultAgent
	}
	if agent == "" {
		agent = names.AgentUnknown
	}
	if runID == "" {
		runID = acc.runID
	}
	return Summary{
		Agent: agent, RunID: runID, TraceID: hex.EncodeToString(traceID[:]),
		Searches: acc.searches, Reads: acc.reads, RepeatQueries: repeatQueries, EmptySearches: acc.emptySearches,
		FailedReads: acc.failedReads, RateLimited: acc.rateLimited, DistinctURLsSeen: resultKeys.len(),
		Citations: len(cited), UncitedFromRetrieval: len(uncited), CitedNotFetched: len(unfetched),
		PagesFromSearch: pages.len(), UnreportedSearches: acc.unreported,
		SlowestMs: float64(acc.slowestNs) / 1e6, TotalMs: float64(totalNs) / 1e6,
		FailureReasons: reasons, Failed: failed, Keep: keep, UncitedURLs: uncited, UnfetchedURLs: unfetched,
	}
}
