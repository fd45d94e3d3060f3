package citetracesummary

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/citetrace/citetracesummary/internal/names"
)

// benchBatch is 100 runs of 10 spans shaped like benchmarks/_serve_load.py (4 searches of 5 URLs, 5 fetches, a root).
func benchBatch(seed int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "bench")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	for r := 0; r < 100; r++ {
		var tid [16]byte
		n := seed*1000 + r + 1
		for i := 0; i < 8; i++ {
			tid[15-i] = byte(n >> (8 * i))
		}
		tid[0] = 7
		run := fmt.Sprintf("run-%d", n)
		for i := 0; i < 9; i++ {
			s := spans.AppendEmpty()
			s.SetTraceID(tid)
			s.SetSpanID([8]byte{1, byte(i + 2), byte(n), byte(n >> 8)})
			s.SetParentSpanID([8]byte{1, 1, byte(n), byte(n >> 8)})
			s.SetStartTimestamp(pcommon.Timestamp(1_000_000 * (i + 1)))
			s.SetEndTimestamp(pcommon.Timestamp(1_000_000*(i+1) + 5_000_000))
			a := s.Attributes()
			a.PutStr(names.GenAiOperationName, "execute_tool")
			a.PutStr("gen_ai.tool.type", "function")
			a.PutStr(names.RunId, run)
			a.PutStr(names.GenAiAgentName, "bench-agent")
			a.PutStr(names.ToolStatus, names.StatusOk)
			if i < 4 {
				s.SetName("execute_tool web_search")
				a.PutStr(names.GenAiToolName, "web_search")
				a.PutStr(names.ToolKind, names.ToolKindSearch)
				a.PutInt("citetrace.result.count", 5)
				a.PutInt("citetrace.result.size", 1200)
				urls := a.PutEmptySlice(names.UrlsReturned)
				for u := 0; u < 5; u++ {
					urls.AppendEmpty().SetStr(fmt.Sprintf("https://site%d.example/p/%d", (n+u)%50, n*7+u))
				}
				a.PutStr(names.QueryHash, fmt.Sprintf("%016x", n*10+i))
			} else {
				s.SetName("execute_tool read_page")
				a.PutStr(names.GenAiToolName, "read_page")
				a.PutStr(names.ToolKind, names.ToolKindFetch)
				a.PutStr(names.UrlFull, fmt.Sprintf("https://site%d.example/p/%d", (n+i-4)%50, n*7+i-4))
				a.PutStr("citetrace.content.hash", "abcdef")
			}
		}
		s := spans.AppendEmpty()
		s.SetTraceID(tid)
		s.SetSpanID([8]byte{1, 1, byte(n), byte(n >> 8)})
		s.SetName("invoke_agent bench-agent")
		s.SetStartTimestamp(1_000_000)
		s.SetEndTimestamp(90_000_000)
		a := s.Attributes()
		a.PutStr(names.GenAiOperationName, names.OpInvokeAgent)
		a.PutStr(names.GenAiAgentName, "bench-agent")
		a.PutStr(names.RunId, run)
		c := a.PutEmptySlice(names.Citations)
		c.AppendEmpty().SetStr(fmt.Sprintf("https://site%d.example/p/%d", n%50, n*7))
	}
	return td
}

// BenchmarkConsume: one batch of 1000 spans through the core, its runs finalised (b.N batches).
func BenchmarkConsume(b *testing.B) {
	cfg := createDefaultConfig()
	cfg.MaxTraces = 1 << 20
	c, _ := testCore(b, cfg)
	now := 0.0
	c.mono = func() float64 { return now }
	c.tracesOut = consumertest.NewNop()
	batches := make([]ptrace.Traces, 50)
	for i := range batches {
		batches[i] = benchBatch(i)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		td := ptrace.NewTraces()
		batches[i%len(batches)].CopyTo(td)
		if i%len(batches) == 0 {
			c.asm = newAssembler(cfg.limits(), true)
		}
		b.StartTimer()
		_ = c.consume(ctx, td)
		now += 3
		c.tick(ctx)
	}
}
