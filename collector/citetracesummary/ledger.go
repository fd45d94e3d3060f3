// The claim ledger's metrics from spans (citetrace/ledger/_metrics.py LedgerMetrics.observe_span): each revision
// iteration's vital signs and the run's stop reason, as citetrace serve records them.
package citetracesummary

import (
	"container/list"
	"slices"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/citetrace/citetracesummary/internal/names"
)

// ledgerMaxAgents is LedgerMetrics' own agent-label cap (_MAX_AGENTS).
const ledgerMaxAgents = 50

type ledgerMetrics struct {
	mu                                           sync.Mutex
	iterations, flat, toolCalls, evidence, flips *counter
	stops                                        *counter
	unresolved                                   map[string]float64
	agents                                       map[string]struct{}
}

func newLedgerMetrics() *ledgerMetrics {
	a := names.LabelAgent
	return &ledgerMetrics{
		iterations: newCounter(names.MetricLedgerIterationsTotal, "Revision iterations run.", a, names.LabelTrigger),
		flat:       newCounter(names.MetricLedgerFlatIterationsTotal, "Iterations after which the unresolved-claim count had not moved.", a),
		toolCalls:  newCounter(names.MetricLedgerToolCallsTotal, "Tool calls spent inside revision iterations.", a),
		evidence:   newCounter(names.MetricLedgerNewEvidenceTotal, "Evidence records added inside revision iterations.", a),
		flips:      newCounter(names.MetricLedgerStatusFlipsTotal, "Claim verdicts that flipped between verified and contradicted.", a),
		stops:      newCounter(names.MetricLedgerStopsTotal, "Revision controller stops by reason.", a, names.LabelStopReason),
		unresolved: map[string]float64{},
		agents:     map[string]struct{}{},
	}
}

func (l *ledgerMetrics) agent(name string) string {
	if _, ok := l.agents[name]; !ok && len(l.agents) >= ledgerMaxAgents {
		return names.ToolOverflow
	}
	l.agents[name] = struct{}{}
	return name
}

func nonNegative(v int64) float64 {
	if v < 0 {
		return 0
	}
	return float64(v)
}

// observe is observe_span for each span's attributes, in order.
func (l *ledgerMetrics) observe(spans []*attrs) {
	if len(spans) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range spans {
		agent := a.agent
		if agent == "" {
			agent = names.AgentUnknown
		}
		lg := &a.ledger
		if lg.hasTrigger && slices.Contains(names.Triggers, lg.trigger) && lg.hasUnresolved {
			label := l.agent(agent)
			l.iterations.inc(label+labelSep+lg.trigger, 1)
			if lg.unresolvedDelta == 0 && lg.unresolved > 0 {
				l.flat.inc(label, 1)
			}
			l.flat.inc(label, 0)
			l.toolCalls.inc(label, nonNegative(lg.toolCalls))
			l.evidence.inc(label, nonNegative(lg.newEvidence))
			l.flips.inc(label, nonNegative(lg.flips))
			l.unresolved[label] = float64(lg.unresolved)
		}
		if lg.hasStopReason && a.operation == names.OpInvokeAgent && slices.Contains(names.StopReasons, lg.stopReason) {
			l.stops.inc(l.agent(agent)+labelSep+lg.stopReason, 1)
		}
	}
}

func (l *ledgerMetrics) counters() []*counter {
	return []*counter{l.iterations, l.flat, l.toolCalls, l.evidence, l.flips, l.stops}
}

// appendTo writes the ledger series (cumulative counters, the unresolved gauge) into sm.
func (l *ledgerMetrics) appendTo(sm pmetric.ScopeMetrics, start, ts pcommon.Timestamp) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.counters() {
		appendCounter(sm, c, start, ts)
	}
	if len(l.unresolved) > 0 {
		metric := sm.Metrics().AppendEmpty()
		metric.SetName(names.MetricLedgerUnresolved)
		metric.SetDescription("Unresolved claims after the latest iteration.")
		g := metric.SetEmptyGauge()
		for _, k := range sortedKeys(l.unresolved) {
			dp := g.DataPoints().AppendEmpty()
			dp.Attributes().PutStr(names.LabelAgent, k)
			dp.SetTimestamp(ts)
			dp.SetDoubleValue(l.unresolved[k])
		}
	}
}

// recentIDs is _RecentIds: the last limit span ids seen (a retried request must not count an iteration twice).
type recentIDs struct {
	limit int
	ids   map[[8]byte]*list.Element
	order *list.List
}

func newRecentIDs(limit int) *recentIDs {
	return &recentIDs{limit: limit, ids: map[[8]byte]*list.Element{}, order: list.New()}
}

func (r *recentIDs) first(id [8]byte) bool {
	if _, ok := r.ids[id]; ok {
		return false
	}
	r.ids[id] = r.order.PushBack(id)
	if r.order.Len() > r.limit {
		oldest := r.order.Front()
		r.order.Remove(oldest)
		delete(r.ids, oldest.Value.([8]byte))
	}
	return true
}
