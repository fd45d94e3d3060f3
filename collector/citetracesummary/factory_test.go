package citetracesummary

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/citetrace/citetracesummary/internal/names"
)

// TestBothNodesShareOneCore: the traces->traces and traces->metrics nodes of one connector summarise each span
// once; shutdown summarises the runs in flight, sends their roots on and flushes the metrics.
func TestBothNodesShareOneCore(t *testing.T) {
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.GraceSeconds = 3600 // nothing finalises before shutdown: shutdown must do it
	set := connectortest.NewNopSettings(f.Type())
	traces, metrics := &consumertest.TracesSink{}, &consumertest.MetricsSink{}
	ctx := context.Background()
	tt, err := f.CreateTracesToTraces(ctx, set, cfg, traces)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := f.CreateTracesToMetrics(ctx, set, cfg, metrics)
	if err != nil {
		t.Fatal(err)
	}
	if !tt.Capabilities().MutatesData || tm.Capabilities().MutatesData {
		t.Fatal("only the traces node mutates (it holds the roots back)")
	}
	host := componenttest.NewNopHost()
	if err := tt.Start(ctx, host); err != nil {
		t.Fatal(err)
	}
	if err := tm.Start(ctx, host); err != nil {
		t.Fatal(err)
	}
	batch := benchBatch(1)
	spans := batch.SpanCount()
	for _, n := range []interface {
		ConsumeTraces(context.Context, ptrace.Traces) error
	}{tt, tm} { // the collector's fanout gives each node the batch
		td := ptrace.NewTraces()
		batch.CopyTo(td)
		if err := n.ConsumeTraces(ctx, td); err != nil {
			t.Fatal(err)
		}
	}
	if got := traces.SpanCount(); got != spans-100 {
		t.Fatalf("%d spans passed on at once, want %d (every span but the 100 held roots)", got, spans-100)
	}
	if err := tm.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if len(metrics.AllMetrics()) != 0 {
		t.Fatal("the first node's shutdown must not end the shared core")
	}
	if err := tt.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := traces.SpanCount(); got != spans {
		t.Fatalf("%d spans after shutdown, want all %d (the held roots with their summaries)", got, spans)
	}
	runs := runsTotal(metrics.AllMetrics())
	if runs != 100 {
		t.Fatalf("citetrace_runs_total = %v, want 100 (each run summarised once)", runs)
	}
}

func runsTotal(all []pmetric.Metrics) float64 {
	last := all[len(all)-1]
	total := 0.0
	rms := last.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				if ms.At(k).Name() == names.MetricRunsTotal {
					dps := ms.At(k).Sum().DataPoints()
					for d := 0; d < dps.Len(); d++ {
						total += dps.At(d).DoubleValue()
					}
				}
			}
		}
	}
	return total
}

// TestConfigValidate names the setting out of range, and the defaults are valid.
func TestConfigValidate(t *testing.T) {
	if err := createDefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	cfg := createDefaultConfig()
	cfg.SamplePercent = 101
	cfg.MaxTraces = 0
	cfg.TraceTTLSeconds = 0
	err := cfg.Validate()
	if err == nil {
		t.Fatal("an invalid config passed")
	}
	for _, want := range []string{"sample_percent", "max_traces", "trace_ttl_seconds"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
