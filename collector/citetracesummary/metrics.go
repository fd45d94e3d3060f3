// The summary's Prometheus metrics (citetrace/metrics/_metrics.py SummaryMetrics): the same names, labels, label
// caps and buckets, kept as cumulative series and written out as OTel metrics for prometheusremotewrite.
package citetracesummary

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/citetrace/citetracesummary/internal/names"
)

const labelSep = "\x00"

// capped is _Capped: a label value set that stops growing at limit distinct values.
type capped struct {
	limit int
	seen  map[string]struct{}
}

func (c *capped) label(v string) string {
	if _, ok := c.seen[v]; ok {
		return v
	}
	if len(c.seen) < c.limit {
		c.seen[v] = struct{}{}
		return v
	}
	return names.ToolOverflow
}

type counter struct {
	name, doc string
	labels    []string
	values    map[string]float64
}

type histSeries struct {
	counts    []uint64
	total     float64
	exemplars []exemplar
}

type exemplar struct {
	traceID [16]byte
	value   float64
	at      time.Time
}

type histogram struct {
	name, doc string
	labels    []string
	bounds    []float64
	series    map[string]*histSeries
}

func newCounter(name, doc string, labels ...string) *counter {
	return &counter{name: name, doc: doc, labels: labels, values: map[string]float64{}}
}

func newHistogram(name, doc string, bounds []float64, labels ...string) *histogram {
	return &histogram{name: name, doc: doc, labels: labels, bounds: bounds, series: map[string]*histSeries{}}
}

func (c *counter) inc(key string, v float64) { c.values[key] += v }

func (h *histogram) observe(key string, v float64, traceID *[16]byte, at time.Time) {
	h.record(h.seriesOf(key), v, traceID, at)
}

// seriesOf is the series of the label key, made on first use.
func (h *histogram) seriesOf(key string) *histSeries {
	s := h.series[key]
	if s == nil {
		s = &histSeries{counts: make([]uint64, len(h.bounds)+1), exemplars: make([]exemplar, len(h.bounds)+1)}
		h.series[key] = s
	}
	return s
}

// record is one observation in a series.
func (h *histogram) record(s *histSeries, v float64, traceID *[16]byte, at time.Time) {
	i := sort.SearchFloat64s(h.bounds, v)
	s.counts[i]++
	s.total += v
	if traceID != nil {
		s.exemplars[i] = exemplar{*traceID, v, at}
	}
}

// perRun is one per-run histogram: which summary field it observes, and whether that field is in milliseconds.
type perRun struct {
	field string
	ms    bool
	h     *histogram
}

// summaryMetrics is SummaryMetrics: every series the summary exports, cumulative since start.
type summaryMetrics struct {
	mu                     sync.Mutex
	start                  pcommon.Timestamp
	runs, failures, tools  *counter
	uncited, unfetched     *counter
	unreadable             *counter
	evicted, dropped       *counter
	spanErrors             *counter
	toolSeconds            *histogram
	perRun                 []perRun
	toolLabel, agentLabels capped
	inFlight               func() int
	ledger                 *ledgerMetrics
	toolKeys               map[toolLabels][2]string // raw labels -> (tool_calls key, duration key)
}

// toolLabels are a tool call's raw label values (the cache key of their capped, joined form).
type toolLabels struct{ agent, tool, kind, status string }

func newSummaryMetrics(maxToolNames int, start time.Time) *summaryMetrics {
	agent, tool, kind, status := names.LabelAgent, names.LabelTool, names.LabelKind, names.LabelStatus
	m := &summaryMetrics{
		start:       pcommon.NewTimestampFromTime(start),
		runs:        newCounter(names.MetricRunsTotal, "Finished research runs.", agent, names.LabelOutcome),
		failures:    newCounter(names.MetricRunFailuresTotal, "Failed runs, once per reason that applied.", agent, names.LabelReason),
		tools:       newCounter(names.MetricToolCallsTotal, "Tool calls by outcome.", agent, tool, kind, status),
		toolSeconds: newHistogram(names.MetricToolCallDurationSeconds, "Tool-call latency (trace-id exemplars).", names.ToolSecondsBuckets, agent, tool, kind),
		uncited:     newCounter(names.MetricUncitedCitationsTotal, "Cited URLs that no search returned.", agent),
		unfetched:   newCounter(names.MetricUnfetchedCitationsTotal, "Cited URLs the run never fetched.", agent),
		unreadable: newCounter(names.MetricUnreadableReadsTotal,
			"Fetches whose content gave no text, by why (a PDF without text, a consent wall...).", agent, names.LabelReason),
		evicted:     newCounter(names.MetricTracesEvictedTotal, "Trace states evicted before their root ended.", names.LabelEvictReason),
		dropped:     newCounter(names.MetricSpansDroppedTotal, "Spans dropped by a bound.", names.LabelDropReason),
		spanErrors:  newCounter(names.MetricSpanProcessingErrorsTotal, "Internal errors while processing spans (caught)."),
		toolLabel:   capped{limit: maxToolNames, seen: map[string]struct{}{}},
		agentLabels: capped{limit: maxToolNames, seen: map[string]struct{}{}},
		ledger:      newLedgerMetrics(),
		toolKeys:    map[toolLabels][2]string{},
	}
	for _, r := range []struct {
		field, metric, doc string
		bounds             []float64
	}{
		{"searches", names.MetricRunSearches, "Searches per run.", names.CountBuckets},
		{"reads", names.MetricRunReads, "Reads (fetches) per run.", names.CountBuckets},
		{"repeat_queries", names.MetricRunRepeatQueries, "Repeated queries per run.", names.CountBuckets},
		{"distinct_urls_seen", names.MetricRunDistinctUrls, "Distinct URLs in search results per run.", names.CountBuckets},
		{"citations", names.MetricRunCitations, "Citations per run.", names.CountBuckets},
		{"slowest_ms", names.MetricRunSlowestCallSeconds, "Slowest tool call of each run.", names.ToolSecondsBuckets},
		{"total_ms", names.MetricRunDurationSeconds, "Run duration.", names.RunSecondsBuckets},
	} {
		m.perRun = append(m.perRun, perRun{r.field, strings.HasSuffix(r.field, "_ms"), newHistogram(r.metric, r.doc, r.bounds, agent)})
	}
	for _, r := range names.EvictReasons {
		m.evicted.inc(r, 0)
	}
	for _, r := range names.DropReasons {
		m.dropped.inc(r, 0)
	}
	m.spanErrors.inc("", 0)
	return m
}

// agentLabel is SummaryMetrics.agent_label (the caller holds mu).
func (m *summaryMetrics) agentLabel(agent string) string {
	if agent == "" {
		return names.AgentUnknown
	}
	return m.agentLabels.label(agent)
}

// toolCall is one tool span's contribution to the tool-call metrics.
type toolCall struct {
	agent, tool, kind, status string
	seconds                   float64
	traceID                   [16]byte
	unreadable                string // citetrace.content.unreadable, counted for a fetch with a reason of the closed set
}

// observeTools is observe_tool for each call, in order. A run's calls of one tool come together: for each stretch
// of calls with the same labels, the label key and the histogram series are looked up once and the counter is
// added to once.
func (m *summaryMetrics) observeTools(calls []toolCall, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var last toolLabels
	var key [2]string
	var series *histSeries
	pending := 0
	for i := range calls {
		c := &calls[i]
		raw := toolLabels{c.agent, c.tool, c.kind, c.status}
		if i == 0 || raw != last {
			if pending > 0 {
				m.tools.inc(key[0], float64(pending))
			}
			key, pending, last = m.toolKey(raw), 0, raw
			series = m.toolSeconds.seriesOf(key[1])
		}
		pending++
		m.toolSeconds.record(series, c.seconds, &c.traceID, at)
		if c.unreadable != "" && c.kind == names.ToolKindFetch && slices.Contains(names.UnreadableReasons, c.unreadable) {
			m.unreadable.inc(m.agentLabel(c.agent)+labelSep+c.unreadable, 1) // SummaryMetrics.observe_unreadable
		}
	}
	if pending > 0 {
		m.tools.inc(key[0], float64(pending))
	}
}

// toolKey is a call's capped, joined labels: the tool_calls key and the duration key (cached by raw labels).
func (m *summaryMetrics) toolKey(raw toolLabels) [2]string {
	if k, ok := m.toolKeys[raw]; ok {
		return k
	}
	agent := m.agentLabel(raw.agent)
	tool := names.AgentUnknown
	if raw.tool != "" {
		tool = m.toolLabel.label(raw.tool)
	}
	status := raw.status
	if !isToolStatus(status) {
		status = names.StatusError
	}
	if len(m.toolKeys) >= 4096 { // raw names past the cap must not grow this cache forever
		clear(m.toolKeys)
	}
	k := [2]string{agent + labelSep + tool + labelSep + raw.kind + labelSep + status, agent + labelSep + tool + labelSep + raw.kind}
	m.toolKeys[raw] = k
	return k
}

func summaryField(s *Summary, field string) float64 {
	switch field {
	case "searches":
		return float64(s.Searches)
	case "reads":
		return float64(s.Reads)
	case "repeat_queries":
		return float64(s.RepeatQueries)
	case "distinct_urls_seen":
		return float64(s.DistinctURLsSeen)
	case "citations":
		return float64(s.Citations)
	case "slowest_ms":
		return s.SlowestMs
	case "total_ms":
		return s.TotalMs
	}
	panic("unknown summary field " + field)
}

// observeSummaries is observe_summary for each finished run, in order.
func (m *summaryMetrics) observeSummaries(sums []Summary, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// the runs of one agent come together: for each stretch, its label keys and histogram series are made once
	var raw, agent string
	var outcomes [2]string // the runs_total keys: ok, failed
	series := make([]*histSeries, len(m.perRun))
	for i := range sums {
		s := &sums[i]
		if i == 0 || s.Agent != raw {
			raw, agent = s.Agent, m.agentLabel(s.Agent)
			outcomes = [2]string{agent + labelSep + names.OutcomeOk, agent + labelSep + names.OutcomeFailed}
			for j, p := range m.perRun {
				series[j] = p.h.seriesOf(agent)
			}
		}
		if s.Failed {
			m.runs.inc(outcomes[1], 1)
		} else {
			m.runs.inc(outcomes[0], 1)
		}
		for _, r := range s.FailureReasons {
			m.failures.inc(agent+labelSep+r, 1)
		}
		for j, p := range m.perRun {
			v := summaryField(s, p.field)
			if p.ms {
				v /= 1000.0
			}
			p.h.record(series[j], v, nil, at)
		}
		m.uncited.inc(agent, float64(s.UncitedFromRetrieval))
		m.unfetched.inc(agent, float64(s.CitedNotFetched))
	}
}

// count adds n to one of the self-metrics (evicted, dropped by reason, span errors).
func (m *summaryMetrics) count(c *counter, label string, n int) {
	if n == 0 {
		return
	}
	m.mu.Lock()
	c.inc(label, float64(n))
	m.mu.Unlock()
}

// appendCounter writes one cumulative counter's series (nothing when it has none).
func appendCounter(sm pmetric.ScopeMetrics, c *counter, start, ts pcommon.Timestamp) {
	if len(c.values) == 0 {
		return
	}
	metric := sm.Metrics().AppendEmpty()
	metric.SetName(c.name)
	metric.SetDescription(c.doc)
	sum := metric.SetEmptySum()
	sum.SetIsMonotonic(true)
	sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	for _, k := range sortedKeys(c.values) {
		dp := sum.DataPoints().AppendEmpty()
		putLabels(dp.Attributes(), c.labels, k)
		dp.SetStartTimestamp(start)
		dp.SetTimestamp(ts)
		dp.SetDoubleValue(c.values[k])
	}
}

func putLabels(dst pcommon.Map, labels []string, key string) {
	if len(labels) == 0 {
		return
	}
	values := strings.Split(key, labelSep)
	for i, l := range labels {
		dst.PutStr(l, values[i])
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// counters are every summary counter, in exposition order (the ledger's are its own).
func (m *summaryMetrics) counters() []*counter {
	return []*counter{m.runs, m.failures, m.tools, m.uncited, m.unfetched, m.unreadable, m.evicted, m.dropped, m.spanErrors}
}

// appendTo writes every series, cumulative, stamped now, into sm.
func (m *summaryMetrics) appendTo(sm pmetric.ScopeMetrics, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := pcommon.NewTimestampFromTime(now)
	for _, c := range m.counters() {
		appendCounter(sm, c, m.start, ts)
	}
	hists := []*histogram{m.toolSeconds}
	for _, p := range m.perRun {
		hists = append(hists, p.h)
	}
	for _, h := range hists {
		if len(h.series) == 0 {
			continue
		}
		metric := sm.Metrics().AppendEmpty()
		metric.SetName(h.name)
		metric.SetDescription(h.doc)
		hist := metric.SetEmptyHistogram()
		hist.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		for _, k := range sortedKeys(h.series) {
			s := h.series[k]
			dp := hist.DataPoints().AppendEmpty()
			putLabels(dp.Attributes(), h.labels, k)
			dp.SetStartTimestamp(m.start)
			dp.SetTimestamp(ts)
			dp.ExplicitBounds().FromRaw(h.bounds)
			dp.BucketCounts().FromRaw(s.counts)
			var n uint64
			for _, c := range s.counts {
				n += c
			}
			dp.SetCount(n)
			dp.SetSum(s.total)
			for _, ex := range s.exemplars {
				if ex.at.IsZero() {
					continue
				}
				e := dp.Exemplars().AppendEmpty()
				e.SetTraceID(pcommon.TraceID(ex.traceID))
				e.SetDoubleValue(ex.value)
				e.SetTimestamp(pcommon.NewTimestampFromTime(ex.at))
			}
		}
	}
	m.ledger.appendTo(sm, m.start, ts)
	if m.inFlight != nil {
		metric := sm.Metrics().AppendEmpty()
		metric.SetName(names.MetricTracesInFlight)
		metric.SetDescription("Traces with state held by the summarizer.")
		dp := metric.SetEmptyGauge().DataPoints().AppendEmpty()
		dp.SetTimestamp(ts)
		dp.SetDoubleValue(float64(m.inFlight()))
	}
}
