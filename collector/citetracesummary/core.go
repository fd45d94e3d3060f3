// The connector's shared core: one per configuration, fed by the traces->traces and traces->metrics nodes the
// collector builds for it, holding the assembler, the metrics and the output consumers.
package citetracesummary

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/citetrace/citetracesummary/internal/names"
)

const scopeName = "github.com/citetrace/citetracesummary"

// stats are the refused and late spans, also counted in the telemetry (read by tests).
type stats struct{ invalid, mistyped, late, rootCopies atomic.Int64 }

type core struct {
	cfg        *Config
	th         *Thresholds
	logger     *zap.Logger
	tel        *telemetry
	mu         sync.Mutex // guards asm
	asm        *assembler
	metrics    *summaryMetrics
	inFlight   atomic.Int64
	tracesOut  consumer.Traces
	outMu      sync.Mutex // guards metricsOut, which an outlet sets at its Start
	metricsOut consumer.Metrics
	resource   pcommon.Resource // the collector's service.name and service.instance.id: job and instance labels
	clock      func() time.Time
	mono       func() float64
	observe    func([]Summary) // tests: every summary, in order
	stats      stats
	started    int
	drained    bool
	stop       chan struct{}
	wg         sync.WaitGroup
	lifecycle  sync.Mutex
}

func newCore(cfg *Config, logger *zap.Logger, tel *telemetry, collector pcommon.Resource) *core {
	start := time.Now()
	c := &core{cfg: cfg, th: cfg.thresholds(), logger: logger, tel: tel, clock: time.Now,
		mono: func() float64 { return time.Since(start).Seconds() }, resource: pcommon.NewResource()}
	for _, k := range []string{"service.name", "service.namespace", "service.instance.id"} {
		if v, ok := collector.Attributes().Get(k); ok {
			v.CopyTo(c.resource.Attributes().PutEmpty(k))
		}
	}
	if cfg.Instance != "" { // a restart then continues the same series (a counter reset), not new ones
		c.resource.Attributes().PutStr("service.instance.id", cfg.Instance)
	}
	c.metrics = newSummaryMetrics(cfg.MaxToolNames, start)
	c.metrics.inFlight = func() int { return int(c.inFlight.Load()) }
	return c
}

// emitsTraces tells whether accepted roots are held back and emitted with the summary.
func (c *core) emitsTraces() bool { return c.tracesOut != nil }

// consume is one batch: each span read and summarised in one pass under the lock (nothing per span is kept but
// the accumulators' counters and URL sets), the accepted roots held back when traces are emitted, the rest passed on.
func (c *core) consume(ctx context.Context, td ptrace.Traces) error {
	keep := c.emitsTraces()
	invalid, mistyped := 0, 0
	tools := toolBuffers.Get().(*[]toolCall)
	defer func() { clear(*tools); *tools = (*tools)[:0]; toolBuffers.Put(tools) }()
	res := added{drops: map[string]int{}, tools: (*tools)[:0]}
	c.mu.Lock()
	c.asm.keepOuts = keep
	now := c.mono()
	var sp inSpan
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		service := ""
		if v, ok := rs.Resource().Attributes().Get("service.name"); ok && v.Type() == pcommon.ValueTypeStr {
			service = v.Str()
		}
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				span := ss.At(k)
				sp = inSpan{}
				problem := readAttrs(span.Attributes(), &sp.view.attrs)
				tid, sid := span.TraceID(), span.SpanID()
				if tid.IsEmpty() || sid.IsEmpty() { // as serve's decoder: refused whatever the span is
					invalid++
					continue
				}
				if problem != "" {
					mistyped++
					c.tel.problem(problem)
					continue
				}
				a := &sp.view.attrs
				if !isToolKind(a.kind) && a.operation != names.OpInvokeAgent && !a.ledger.hasTrigger {
					continue // not a citetrace span: nothing in the summary reads it
				}
				sp.traceID, sp.spanID, sp.name, sp.service = tid, sid, span.Name(), service
				sp.view.startNs, sp.view.endNs = uint64(span.StartTimestamp()), uint64(span.EndTimestamp())
				sp.view.statusError = span.Status().Code() == ptrace.StatusCodeError
				c.asm.addSpan(&sp, now, &res)
				if len(res.held) > len(res.heldAt) {
					res.heldAt = append(res.heldAt, spanPos{i, j, k})
				}
			}
		}
	}
	if keep && len(res.held) > 0 {
		holdRoots(td, res.held, res.heldAt) // under the lock: a tick must not emit a root before its span is moved in
	}
	c.inFlight.Store(int64(c.asm.inFlight()))
	c.mu.Unlock()
	c.stats.invalid.Add(int64(invalid))
	c.stats.mistyped.Add(int64(mistyped))
	c.stats.late.Add(int64(res.late))
	c.stats.rootCopies.Add(int64(res.copies))
	c.tel.refused(ctx, invalid, mistyped)
	c.tel.late(ctx, res.late)
	for reason, n := range res.drops {
		c.metrics.count(c.metrics.dropped, reason, n)
		c.tel.dropped(ctx, reason, n)
	}
	c.metrics.ledger.observe(res.ledger)
	c.metrics.observeTools(res.tools, c.clock())
	*tools = res.tools // the grown buffer goes back to the pool
	var err error
	if keep && td.SpanCount() > 0 {
		err = c.tracesOut.ConsumeTraces(ctx, td)
	}
	// as serve's _after_add: the runs finalised because they were due first, then those evicted to make room
	ordered := make([]finished, 0, len(res.done))
	for _, f := range res.done {
		if f.evicted == "" {
			ordered = append(ordered, f)
		}
	}
	for _, f := range res.done {
		if f.evicted != "" {
			ordered = append(ordered, f)
		}
	}
	c.emit(ctx, ordered)
	return err
}

// toolBuffers reuse the per-batch tool-call list (one entry per tool span; batches arrive concurrently): without
// them every batch regrows a list of its tool spans and leaves it to the garbage collector.
var toolBuffers = sync.Pool{New: func() any { b := make([]toolCall, 0, 1024); return &b }}

// spanPos is where a span is in its batch: resource spans, scope spans, span.
type spanPos struct{ rs, ss, span int }

// holdRoots moves the accepted roots out of the batch into their held slots (no copy; the resource and scope are
// copied once per scope of the batch); they are emitted later, with their summary. at[n] is where roots[n] is in
// the batch (consume's pass notes it, in batch order), so no span is looked up by its ids.
func holdRoots(td ptrace.Traces, roots []*heldRoot, at []spanPos) {
	rss := td.ResourceSpans()
	for n := 0; n < len(roots); {
		if n > 0 && at[n].rs != at[n-1].rs {
			removeEmptyScopes(rss.At(at[n-1].rs))
		}
		rs := rss.At(at[n].rs)
		ss := rs.ScopeSpans().At(at[n].ss)
		h := &holder{resource: pcommon.NewResource(), resSchema: rs.SchemaUrl(),
			scope: pcommon.NewInstrumentationScope(), scopeSchema: ss.SchemaUrl()}
		rs.Resource().CopyTo(h.resource)
		ss.Scope().CopyTo(h.scope)
		k, scope := 0, at[n]
		ss.Spans().RemoveIf(func(s ptrace.Span) bool {
			hit := n < len(roots) && at[n].rs == scope.rs && at[n].ss == scope.ss && at[n].span == k
			k++
			if !hit {
				return false
			}
			r := roots[n]
			n++
			if r == nil { // a re-sent copy of a held root: the held one is sent on with its summary
				return true
			}
			r.span = ptrace.NewSpan()
			s.MoveTo(r.span)
			r.holder, r.hasOut = h, true
			return true
		})
	}
	if len(at) > 0 {
		removeEmptyScopes(rss.At(at[len(at)-1].rs))
	}
	rss.RemoveIf(func(rs ptrace.ResourceSpans) bool { return rs.ScopeSpans().Len() == 0 })
}

// removeEmptyScopes drops the scopes whose spans were all roots taken out.
func removeEmptyScopes(rs ptrace.ResourceSpans) {
	rs.ScopeSpans().RemoveIf(func(ss ptrace.ScopeSpans) bool { return ss.Spans().Len() == 0 })
}

// emit finalises traces: evictions counted, summaries recorded, held roots sent on with their summary.
func (c *core) emit(ctx context.Context, done []finished) {
	if len(done) == 0 {
		return
	}
	sums := make([]Summary, 0, len(done))
	out := ptrace.NewTraces()
	scopes := map[*holder]ptrace.SpanSlice{}
	for _, f := range done {
		if f.evicted != "" {
			c.metrics.count(c.metrics.evicted, f.evicted, 1)
			c.tel.evicted(ctx, f.evicted)
		}
		for _, run := range finish(f, c.th) {
			if run.incomplete {
				c.metrics.count(c.metrics.evicted, names.EvictIncomplete, 1)
				c.tel.evicted(ctx, names.EvictIncomplete)
			} else {
				sums = append(sums, run.summary)
			}
			if run.root == nil || !run.root.hasOut {
				continue
			}
			h := run.root.holder
			spans, ok := scopes[h]
			if !ok {
				rs := out.ResourceSpans().AppendEmpty()
				h.resource.CopyTo(rs.Resource())
				rs.SetSchemaUrl(h.resSchema)
				ss := rs.ScopeSpans().AppendEmpty()
				h.scope.CopyTo(ss.Scope())
				ss.SetSchemaUrl(h.scopeSchema)
				spans = ss.Spans()
				scopes[h] = spans
			}
			span := spans.AppendEmpty()
			run.root.span.MoveTo(span)
			run.root.hasOut = false
			if !run.incomplete { // a fragment's root keeps the agent's own summary (the whole run's)
				writeSummary(span.Attributes(), &run.summary)
			}
		}
	}
	c.metrics.observeSummaries(sums, c.clock())
	if c.observe != nil {
		c.observe(sums)
	}
	c.tel.runs(ctx, len(sums))
	if out.SpanCount() > 0 && c.tracesOut != nil {
		if err := c.tracesOut.ConsumeTraces(ctx, out); err != nil {
			c.tel.exportError(ctx, "traces")
			c.logger.Warn("citetracesummary: summarised roots not accepted downstream", zap.Error(err))
		}
	}
}

// summaryKeys are the citetrace.summary.<field> keys, in names.SummaryFields order (built once, not per root).
var summaryKeys = func() []string {
	keys := make([]string, len(names.SummaryFields))
	for i, field := range names.SummaryFields {
		keys[i] = names.SummaryPrefix + field
	}
	return keys
}()

// writeSummary is TraceSummary.to_attributes, written on the run's root.
func writeSummary(m pcommon.Map, s *Summary) {
	m.EnsureCapacity(m.Len() + len(names.SummaryFields) + 3)
	ints := [...]int{s.Searches, s.Reads, s.RepeatQueries, s.EmptySearches, s.FailedReads, s.RateLimited,
		s.DistinctURLsSeen, s.Citations, s.UncitedFromRetrieval, s.CitedNotFetched, s.PagesFromSearch,
		s.UnreportedSearches}
	for i, field := range names.SummaryFields {
		key := summaryKeys[i]
		switch field {
		case "slowest_ms":
			m.PutDouble(key, s.SlowestMs)
		case "total_ms":
			m.PutDouble(key, s.TotalMs)
		default:
			m.PutInt(key, int64(ints[i]))
		}
	}
	reasons := m.PutEmptySlice(names.SummaryFailureReasons)
	for _, r := range s.FailureReasons {
		reasons.AppendEmpty().SetStr(r)
	}
	m.PutBool(names.SummaryFailed, s.Failed)
	m.PutBool(names.SummaryKeep, s.Keep)
}

// tick finalises what is due.
func (c *core) tick(ctx context.Context) {
	c.mu.Lock()
	done := c.asm.finalizeDue(c.mono())
	c.inFlight.Store(int64(c.asm.inFlight()))
	c.mu.Unlock()
	c.emit(ctx, done)
}

// sendMetricsTo makes next the metrics pipeline (an outlet's); a connector has at most one.
func (c *core) sendMetricsTo(next consumer.Metrics) error {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.metricsOut != nil {
		return errors.New("the connector it names already sends its metrics to a metrics pipeline of its own " +
			"(use that or the outlet, not both)")
	}
	c.metricsOut = next
	return nil
}

// flushMetrics sends every cumulative series to the metrics pipeline.
func (c *core) flushMetrics(ctx context.Context) {
	c.outMu.Lock()
	out := c.metricsOut
	c.outMu.Unlock()
	if out == nil {
		return
	}
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	c.resource.CopyTo(rm.Resource())
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName(scopeName)
	c.metrics.appendTo(sm, c.clock())
	if err := out.ConsumeMetrics(ctx, md); err != nil {
		c.tel.exportError(ctx, "metrics")
		c.logger.Warn("citetracesummary: metrics not accepted downstream", zap.Error(err))
	}
}

func (c *core) run() {
	defer c.wg.Done()
	ticker := time.NewTicker(c.cfg.Tick)
	defer ticker.Stop()
	flush := time.NewTicker(c.cfg.MetricsFlushInterval)
	defer flush.Stop()
	ctx := context.Background()
	for {
		select {
		case <-c.stop:
			return
		case <-ticker.C:
			c.tick(ctx)
		case <-flush.C:
			c.flushMetrics(ctx)
		}
	}
}

func (c *core) start() {
	c.lifecycle.Lock()
	defer c.lifecycle.Unlock()
	c.started++
	if c.started > 1 {
		return
	}
	c.asm = newAssembler(c.cfg.limits(), c.emitsTraces())
	c.drained = false
	c.stop = make(chan struct{})
	c.wg.Add(1)
	go c.run()
}

// shutdown is a node's Shutdown. What is in flight is summarised (roots that arrived) and counted as shutdown,
// and the roots go out, when the summarising node shuts down: its traces output pipeline still runs then (the
// collector shuts pipelines down from the receivers on). The last node to shut down stops the ticker and flushes
// the metrics one last time; with an outlet, that is the outlet, whose metrics pipeline still runs.
func (c *core) shutdown(ctx context.Context, summarising bool) {
	c.lifecycle.Lock()
	defer c.lifecycle.Unlock()
	if c.started == 0 {
		return
	}
	if summarising {
		c.drain(ctx)
	}
	c.started--
	if c.started > 0 {
		return
	}
	close(c.stop)
	c.wg.Wait()
	c.drain(ctx)
	c.flushMetrics(ctx)
}

// drain finalises every trace in flight, once.
func (c *core) drain(ctx context.Context) {
	if c.drained {
		return
	}
	c.drained = true
	c.mu.Lock()
	done := c.asm.drain()
	c.inFlight.Store(0)
	c.mu.Unlock()
	c.emit(ctx, done)
}
