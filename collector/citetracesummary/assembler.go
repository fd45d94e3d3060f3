// Trace assembly (citetrace/serve/_assembler.py): spans from many batches in, one Summary per run out.
//
// A trace is finalised a grace period after its run root (invoke_agent) arrives, so late children still count,
// or, with no root, after it has been idle for the TTL. Per trace it holds one accumulator per run and the run
// roots, never the other spans. Every bound is the Python one, charged with the same byte estimates, so both
// implementations evict the same traces: traces in flight (least recently active evicted), tool spans, roots and
// URLs per trace (the span over a cap is refused), and bytes held over all traces.
package citetracesummary

import (
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/citetrace/citetracesummary/internal/names"
)

// The byte estimates of serve/_assembler.py (_STRING_COST, _SPAN_COST, _ROOT_COST).
const (
	stringCost = 192
	spanCost   = 160
	rootCost   = 1024
)

// inSpan is one span as the assembler takes it.
type inSpan struct {
	traceID [16]byte
	spanID  [8]byte
	name    string
	view    spanView
	service string
}

// holder is the resource and scope (copied once per batch) of roots held back from that batch.
type holder struct {
	resource    pcommon.Resource
	resSchema   string
	scope       pcommon.InstrumentationScope
	scopeSchema string
}

// heldRoot is a run root waiting for its trace's grace period; when traces are emitted, its span is moved out of
// the batch into span (no copy) and sent on with its summary.
type heldRoot struct {
	view    rootView
	spanID  [8]byte
	traceID [16]byte
	span    ptrace.Span
	holder  *holder
	hasOut  bool
}

type dueEntry struct {
	at float64
	id [16]byte
}

// finished is a trace leaving the table: its state and why.
type finished struct {
	state    *traceState
	rootless bool
	evicted  string // eviction reason, "" for a normal finalisation
}

// added is what one add call did.
type added struct {
	tools   []toolCall
	drops   map[string]int
	refused int
	late    int
	done    []finished
	problem string
	ledger  []*attrs    // iteration spans and accepted roots with a stop reason, for the ledger metrics
	held    []*heldRoot // nil: a re-sent copy of a root held already, taken out of the batch and dropped
	heldAt  []spanPos   // where each held root is in the batch (consume notes it)
	copies  int         // re-sent copies of held roots dropped
}

// limits are the assembler's bounds (Config, validated).
type limits struct {
	maxTraces, maxSpans, maxRoots, maxURLs int
	maxHeld                                int
	grace, ttl                             float64
}

// assembler is Assembler; the caller serialises calls.
type assembler struct {
	lim        limits
	traces     map[[16]byte]*traceState
	lru        traceList  // front = least recently active
	dueQ       []dueEntry // from dueHead on: the traces whose root arrived, in the order they are due
	dueHead    int
	doneIDs    map[[16]byte]struct{}
	doneQ      [][16]byte
	maxDone    int
	heldSum    int
	keepOuts   bool
	ledgerSeen *recentIDs
	last       *traceState // the trace the last span accepted went to (nil once it leaves the table)
}

func newAssembler(lim limits, keepOuts bool) *assembler {
	maxDone := 4 * lim.maxTraces
	if maxDone < 4096 {
		maxDone = 4096
	}
	return &assembler{lim: lim, traces: map[[16]byte]*traceState{}, doneIDs: map[[16]byte]struct{}{},
		maxDone: maxDone, keepOuts: keepOuts, ledgerSeen: newRecentIDs(10_000)}
}

func (a *assembler) inFlight() int { return len(a.traces) }

func runes(s string) int { return utf8.RuneCountInString(s) }

func urlCharge(urls []string) int {
	n := len(urls) * stringCost
	for _, u := range urls {
		n += runes(u)
	}
	return n
}

func listCharge(urls strList) int {
	n := urls.len() * stringCost
	for i := range urls.len() {
		n += runes(urls.at(i))
	}
	return n
}

// add takes one batch's spans (in order); accepted roots are copied for emission when keepOuts is set.
func (a *assembler) add(spans []inSpan, now float64) added {
	res := added{drops: map[string]int{}}
	for i := range spans {
		a.addSpan(&spans[i], now, &res)
	}
	return res
}

// addSpan takes one span (what add does for each); res collects what happened.
func (a *assembler) addSpan(sp *inSpan, now float64, res *added) {
	{
		at := &sp.view.attrs
		isTool := isToolKind(at.kind)
		isRoot := !isTool && at.operation == names.OpInvokeAgent
		if !isTool && !isRoot {
			if at.ledger.hasTrigger && a.ledgerSeen.first(sp.spanID) {
				cp := *at
				res.ledger = append(res.ledger, &cp) // a revision iteration: its vital signs are metrics
			}
			return
		}
		var state *traceState
		if a.last != nil && a.last.id == sp.traceID {
			state = a.last // in the table, so not done: the spans of a trace mostly come together
		} else {
			if _, done := a.doneIDs[sp.traceID]; done {
				res.late++
				return
			}
			state = a.traces[sp.traceID]
		}
		if state != nil {
			if state.spanIDs.has(sp.spanID) {
				state.touched = now
				if isRoot { // a re-sent copy of a root held here: dropped (holdRoots), the held one goes on with
					// its summary; passed through, the copy reached the tail sampler first, without the summary,
					// and a sampler deciding on it dropped the failed run's trace
					res.held = append(res.held, nil)
					res.copies++
				}
				return
			}
		}
		var count, charge int
		if isTool {
			count = at.urlsReturned.len()
			charge = spanCost
			if count > 0 {
				charge += listCharge(at.urlsReturned)
			}
			if at.pagesReturned.len() > 0 {
				count += at.pagesReturned.len()
				charge += listCharge(at.pagesReturned)
			}
			if at.hasURLFull {
				count++
				charge += stringCost + runes(at.urlFull)
			}
			if at.hasURLFinal { // a redirected fetch's final URL: held in the fetched set too
				count++
				charge += stringCost + runes(at.urlFinal)
			}
			if at.queryHash != "" {
				charge += stringCost + runes(at.queryHash)
			} else if at.hasQueryText {
				charge += stringCost + runes(at.queryText)
			}
		} else {
			count = len(at.citations)
			charge = rootCost + urlCharge(at.citations)
		}
		reason := ""
		if count > a.lim.maxURLs || (state != nil && state.urls+count > a.lim.maxURLs) {
			reason = names.DropUrlsPerTrace
		} else if state != nil {
			if isRoot {
				if len(state.roots) >= a.lim.maxRoots {
					reason = names.DropRootsPerTrace
				}
			} else if state.spanIDs.len()-len(state.roots) >= a.lim.maxSpans {
				reason = names.DropSpansPerTrace
			}
		}
		if reason != "" {
			res.drops[reason]++
			if res.problem == "" {
				res.problem = "span " + pyRepr(sp.name) + " refused: its trace is over the " + reason + " cap"
			}
			return
		}
		if state == nil {
			if len(a.traces) >= a.lim.maxTraces {
				a.takeDue(now, &res.done)
			}
			for len(a.traces) >= a.lim.maxTraces {
				res.done = append(res.done, a.popOldest(names.EvictCapacity))
			}
			state = newTraceState(sp.traceID, now, sp.service)
			a.lru.pushBack(state)
			a.traces[sp.traceID] = state
		} else {
			state.touched = now
			a.lru.moveToBack(state)
		}
		if isTool {
			key := at.runID
			acc := state.run(key)
			if acc == nil {
				acc = newAccumulator()
				state.runs = append(state.runs, runEntry{key, acc})
			}
			acc.add(&sp.view)
			agent := at.agent
			if agent == "" {
				agent = sp.service
			}
			d := int64(sp.view.endNs) - int64(sp.view.startNs)
			if d < 0 {
				d = 0
			}
			res.tools = append(res.tools, toolCall{agent: agent, tool: at.toolName, kind: at.kind,
				status: toolStatus(at, sp.view.statusError), seconds: float64(d) / 1e9, traceID: sp.traceID,
				unreadable: at.unreadable})
		} else {
			res.held = append(res.held, a.takeRoot(state, sp, now))
			if at.ledger.hasStopReason {
				cp := *at
				res.ledger = append(res.ledger, &cp)
			}
		}
		a.last = state
		state.spanIDs.add(sp.spanID)
		state.urls += count
		state.held += charge
		a.heldSum += charge
		for a.heldSum > a.lim.maxHeld && len(a.traces) > 0 {
			res.done = append(res.done, a.popOldest(names.EvictMemory))
		}
	}
}

// takeRoot holds a run root and (re)arms its trace's grace period.
func (a *assembler) takeRoot(state *traceState, sp *inSpan, now float64) *heldRoot {
	root := &heldRoot{view: newRootView(&sp.view), spanID: sp.spanID, traceID: sp.traceID}
	state.roots = append(state.roots, root)
	if !state.hasDue {
		state.due, state.hasDue = now+a.lim.grace, true
		a.dueQ = append(a.dueQ, dueEntry{state.due, state.id})
	} else if now+a.lim.grace > state.due {
		state.due = now + a.lim.grace
	}
	return root
}

func (a *assembler) remove(state *traceState) {
	if a.last == state {
		a.last = nil
	}
	delete(a.traces, state.id)
	a.lru.remove(state)
	a.heldSum -= state.held
	a.remember(state.id)
}

func (a *assembler) popOldest(reason string) finished {
	state := a.lru.front()
	a.remove(state)
	return finished{state: state, evicted: reason}
}

// takeDue moves every trace whose grace period is over to out.
func (a *assembler) takeDue(now float64, out *[]finished) {
	for a.dueHead < len(a.dueQ) && a.dueQ[a.dueHead].at <= now {
		e := a.dueQ[a.dueHead]
		a.dueHead++
		if a.dueHead > 1024 && a.dueHead*2 > len(a.dueQ) { // reuse the front instead of regrowing the slice
			a.dueQ = a.dueQ[:copy(a.dueQ, a.dueQ[a.dueHead:])]
			a.dueHead = 0
		}
		state := a.traces[e.id]
		if state == nil {
			continue
		}
		if state.hasDue && state.due > now {
			a.dueQ = append(a.dueQ, dueEntry{state.due, e.id})
			continue
		}
		a.remove(state)
		*out = append(*out, finished{state: state})
	}
}

// finalizeDue is finalize_due: traces past their grace period, then those idle past the TTL.
func (a *assembler) finalizeDue(now float64) []finished {
	var out []finished
	a.takeDue(now, &out)
	limit := now - a.lim.ttl
	for a.lru.len() > 0 {
		state := a.lru.front()
		if state.touched > limit {
			break
		}
		a.remove(state)
		out = append(out, finished{state: state, rootless: true, evicted: names.EvictTtl})
	}
	return out
}

// drain is drain: every trace still held, evicted as shutdown.
func (a *assembler) drain() []finished {
	var out []finished
	for a.lru.len() > 0 {
		state := a.lru.front()
		a.remove(state)
		out = append(out, finished{state: state, evicted: names.EvictShutdown})
	}
	a.dueQ, a.dueHead = nil, 0
	return out
}

func (a *assembler) remember(id [16]byte) {
	if _, ok := a.doneIDs[id]; ok {
		return
	}
	a.doneIDs[id] = struct{}{}
	a.doneQ = append(a.doneQ, id)
	if len(a.doneQ) > a.maxDone {
		delete(a.doneIDs, a.doneQ[0])
		a.doneQ = a.doneQ[1:]
	}
}

// finishedRun is one run's summary and, when it had a held root, that root. An incomplete run (a fragment) has
// no summary: its root is sent on as it came, with the agent's own summary.
type finishedRun struct {
	summary    Summary
	root       *heldRoot
	incomplete bool
}

// finish is _finish: one summary per root (its run's accumulator); runs without a root only when rootless or
// when the trace has no root at all. Evicted traces without roots are not summarised (Python's _after_add/drain).
func finish(f finished, th *Thresholds) []finishedRun {
	state := f.state
	if f.evicted != "" && f.evicted != names.EvictTtl && len(state.roots) == 0 {
		return nil
	}
	var out []finishedRun
	for _, root := range state.roots {
		acc := state.popRun(root.view.runID)
		if acc == nil {
			acc = newAccumulator()
		}
		if root.view.incomplete(acc) {
			out = append(out, finishedRun{root: root, incomplete: true})
		} else {
			out = append(out, finishedRun{acc.finish(state.id, &root.view, th, state.service), root, false})
		}
		acc.release()
	}
	if f.rootless || len(state.roots) == 0 {
		for _, r := range state.runs {
			out = append(out, finishedRun{r.acc.finish(state.id, nil, th, state.service), nil, false})
			r.acc.release()
		}
	}
	return out
}

// pyRepr is Python's repr() of a simple string, for messages.
func pyRepr(s string) string { return "'" + s + "'" }
