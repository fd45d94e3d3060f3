package citetracesummary

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/citetrace/citetracesummary/internal/names"
)

// testCore is a core for cfg as the connector makes one, without its nodes: its traces go to the sink, its
// clock is the caller's to set (c.mono), and it is not started (no ticker; the caller ticks).
func testCore(tb testing.TB, cfg *Config) (*core, *consumertest.TracesSink) {
	tb.Helper()
	var c *core
	tel, err := newTelemetry(componenttest.NewNopTelemetrySettings(), func() int64 { return c.inFlight.Load() })
	if err != nil {
		tb.Fatal(err)
	}
	c = newCore(cfg, zap.NewNop(), tel, pcommon.NewResource())
	sink := &consumertest.TracesSink{}
	c.tracesOut = sink
	c.asm = newAssembler(cfg.limits(), true)
	return c, sink
}

// TestRootsHeldFromWhereverTheyAreInTheBatch: roots in several resources and scopes (one scope and one resource
// of roots only) are taken out at once and come back later with their summaries; a root re-sent in the same
// batch is dropped (the held one goes on), a foreign span with the root's ids ahead of it passes through; every
// other span comes out once.
func TestRootsHeldFromWhereverTheyAreInTheBatch(t *testing.T) {
	cfg := createDefaultConfig()
	c, sink := testCore(t, cfg)
	now := 0.0
	c.mono = func() float64 { return now }

	td := ptrace.NewTraces()
	span := func(ss ptrace.ScopeSpans, trace, id byte, root bool) {
		s := ss.Spans().AppendEmpty()
		s.SetTraceID([16]byte{9, trace})
		s.SetSpanID([8]byte{9, id})
		if root {
			s.SetName("invoke_agent a")
			s.Attributes().PutStr(names.GenAiOperationName, names.OpInvokeAgent)
			return
		}
		s.SetName("execute_tool read")
		s.Attributes().PutStr(names.ToolKind, names.ToolKindFetch)
		s.Attributes().PutStr(names.UrlFull, "https://a.example/p")
	}
	scope := func(rs ptrace.ResourceSpans) ptrace.ScopeSpans { return rs.ScopeSpans().AppendEmpty() }
	r1, r2, r3 := td.ResourceSpans().AppendEmpty(), td.ResourceSpans().AppendEmpty(), td.ResourceSpans().AppendEmpty()
	r1.Resource().Attributes().PutStr("service.name", "one")
	s11, s12 := scope(r1), scope(r1)
	span(s11, 1, 2, false)
	span(s11, 1, 1, true) // root of trace 1, second in its scope
	span(s11, 2, 2, false)
	span(s12, 2, 1, true) // a scope of roots only: root of trace 2, then trace 2's root again (dropped)
	span(s12, 2, 1, true)
	r2.Resource().Attributes().PutStr("service.name", "two")
	s21 := scope(r2)
	foreign := s21.Spans().AppendEmpty() // not a citetrace span, with the ids of trace 3's root: passes through
	foreign.SetTraceID([16]byte{9, 3})
	foreign.SetSpanID([8]byte{9, 1})
	span(s21, 3, 2, false)
	span(s21, 3, 1, true)
	r3.Resource().Attributes().PutStr("service.name", "three")
	span(scope(r3), 4, 1, true) // a resource of roots only
	in := td.SpanCount()

	if err := c.consume(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	first := sink.AllTraces()[0]
	if got := first.SpanCount(); got != in-5 {
		t.Fatalf("%d spans passed on at once, want %d (all but the 4 roots and the re-sent copy)", got, in-5)
	}
	if first.ResourceSpans().Len() != 2 || first.ResourceSpans().At(0).ScopeSpans().Len() != 1 {
		t.Fatalf("the resource of roots only and the scope of roots and a re-sent root must go")
	}
	if got := first.ResourceSpans().At(1).ScopeSpans().At(0).Spans().At(0).Name(); got != "" {
		t.Fatalf("the foreign span ahead of trace 3's root was taken (%q)", got)
	}
	now += cfg.GraceSeconds + 1
	c.tick(context.Background())
	if got := sink.SpanCount(); got != in-1 {
		t.Fatalf("%d spans out in all, want %d (all but the re-sent copy)", got, in-1)
	}
	later := sink.AllTraces()[1]
	services := map[string]int{}
	for i := 0; i < later.ResourceSpans().Len(); i++ {
		rs := later.ResourceSpans().At(i)
		svc, _ := rs.Resource().Attributes().Get("service.name")
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			spans := rs.ScopeSpans().At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				if _, ok := spans.At(k).Attributes().Get(names.SummaryKeep); !ok {
					t.Fatalf("a held root came back without its summary")
				}
				services[svc.Str()]++
			}
		}
	}
	if services["one"] != 2 || services["two"] != 1 || services["three"] != 1 {
		t.Fatalf("held roots by resource: %v, want one:2 two:1 three:1", services)
	}
}

// TestAReSentRootNeverGoesOutWithoutItsSummary: an exporter's retry re-sends a batch while its run's root is held
// (inside the grace period). Found by hout8 with the real tail sampler: the copy went straight on without the
// summary, the sampler decided on that root (decision_wait_after_root_received) before the held one came, and a
// failed run's trace was dropped. The copy is dropped; the held root goes on once, with its summary.
func TestAReSentRootNeverGoesOutWithoutItsSummary(t *testing.T) {
	cfg := createDefaultConfig()
	c, sink := testCore(t, cfg)
	now := 0.0
	c.mono = func() float64 { return now }
	batch := func() ptrace.Traces {
		td := ptrace.NewTraces()
		spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
		tool := spans.AppendEmpty()
		tool.SetTraceID([16]byte{7, 1})
		tool.SetSpanID([8]byte{7, 2})
		tool.SetParentSpanID([8]byte{7, 1})
		tool.Attributes().PutStr(names.ToolKind, names.ToolKindSearch)
		tool.Attributes().PutStr(names.ToolStatus, names.StatusEmpty)
		root := spans.AppendEmpty()
		root.SetTraceID([16]byte{7, 1})
		root.SetSpanID([8]byte{7, 1})
		root.Attributes().PutStr(names.GenAiOperationName, names.OpInvokeAgent)
		return td
	}
	for range 2 { // the batch, and the retry of it half a second later
		if err := c.consume(context.Background(), batch()); err != nil {
			t.Fatal(err)
		}
		now += 0.5
	}
	now += cfg.GraceSeconds
	c.tick(context.Background())
	roots := 0
	for _, td := range sink.AllTraces() {
		spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		for k := 0; k < spans.Len(); k++ {
			s := spans.At(k)
			if _, isRoot := s.Attributes().Get(names.GenAiOperationName); !isRoot {
				continue
			}
			roots++
			if failed, ok := s.Attributes().Get(names.SummaryFailed); !ok || !failed.Bool() {
				t.Fatalf("a root went out without the summary that marks its run failed")
			}
		}
	}
	if roots != 1 {
		t.Fatalf("%d roots out, want the held one alone", roots)
	}
}
