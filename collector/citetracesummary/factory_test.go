package citetracesummary

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
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

// TestOutletSendsTheMetricsOfTheSummarisingConnector: with an outlet (metrics_of) at the end of the traces output
// and the summarising connector alone on the input, each span is summarised once; shutting the summarising node
// down first (the collector's order) sends the held roots on, and the outlet's shutdown flushes the metrics.
func TestOutletSendsTheMetricsOfTheSummarisingConnector(t *testing.T) {
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.GraceSeconds = 3600
	outCfg := f.CreateDefaultConfig().(*Config)
	outCfg.MetricsOf = "citetracesummary"
	if err := outCfg.Validate(); err != nil {
		t.Fatal(err)
	}
	set := connectortest.NewNopSettings(f.Type())
	set.ID = component.NewID(f.Type())
	outSet := connectortest.NewNopSettings(f.Type())
	outSet.ID = component.MustNewIDWithName(typeStr, "metrics")
	traces, metrics := &consumertest.TracesSink{}, &consumertest.MetricsSink{}
	ctx := context.Background()
	// the collector builds and starts downstream first: the outlet, then the summarising connector
	out, err := f.CreateTracesToMetrics(ctx, outSet, outCfg, metrics)
	if err != nil {
		t.Fatal(err)
	}
	tt, err := f.CreateTracesToTraces(ctx, set, cfg, traces)
	if err != nil {
		t.Fatal(err)
	}
	if !tt.Capabilities().MutatesData || out.Capabilities().MutatesData {
		t.Fatal("the summarising node mutates (it holds the roots back); the outlet only reads")
	}
	host := componenttest.NewNopHost()
	for _, n := range []component.Component{out, tt} {
		if err := n.Start(ctx, host); err != nil {
			t.Fatal(err)
		}
	}
	batch := benchBatch(1)
	spans := batch.SpanCount()
	if err := tt.ConsumeTraces(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got := traces.SpanCount(); got != spans-100 {
		t.Fatalf("%d spans passed on at once, want %d (every span but the 100 held roots)", got, spans-100)
	}
	if err := out.ConsumeTraces(ctx, traces.AllTraces()[0]); err != nil { // the output comes back to the outlet
		t.Fatal(err)
	}
	if err := tt.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := traces.SpanCount(); got != spans {
		t.Fatalf("%d spans after the summarising node's shutdown, want all %d (the held roots)", got, spans)
	}
	if len(metrics.AllMetrics()) != 0 {
		t.Fatal("the metrics are flushed by the last node to shut down, the outlet")
	}
	if err := out.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if runs := runsTotal(metrics.AllMetrics()); runs != 100 {
		t.Fatalf("citetrace_runs_total = %v, want 100 (each run once; the outlet's traces are not summarised)", runs)
	}
}

// TestOutletMisconfigured: every wrong use of metrics_of fails with a message naming it.
func TestOutletMisconfigured(t *testing.T) {
	ctx := context.Background()
	host := componenttest.NewNopHost()
	f := NewFactory()
	outlet := func(of string) *Config {
		c := f.CreateDefaultConfig().(*Config)
		c.MetricsOf = of
		return c
	}
	set := connectortest.NewNopSettings(f.Type())
	set.ID = component.NewID(f.Type())
	outSet := connectortest.NewNopSettings(f.Type())
	outSet.ID = component.MustNewIDWithName(typeStr, "metrics")

	withSettings := outlet("citetracesummary")
	withSettings.MaxSearches = 3
	for cfg, want := range map[*Config]string{withSettings: "takes no other setting", outlet("spanmetrics"): "must name a citetracesummary",
		outlet("citetracesummary/"): "metrics_of"} {
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(metrics_of %q) = %v, want an error with %q", cfg.MetricsOf, err, want)
		}
	}
	if _, err := f.CreateTracesToTraces(ctx, outSet, outlet("citetracesummary"), consumertest.NewNop()); err == nil ||
		!strings.Contains(err.Error(), "metrics outlet") {
		t.Errorf("an outlet used traces -> traces: %v", err)
	}
	lone, err := f.CreateTracesToMetrics(ctx, outSet, outlet("citetracesummary/missing"), consumertest.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := lone.Start(ctx, host); err == nil || !strings.Contains(err.Error(), "citetracesummary/missing") {
		t.Errorf("an outlet naming no summarising connector started: %v", err)
	}
	// the summarising connector has a metrics pipeline of its own too: its metrics would be sent twice
	cfg := f.CreateDefaultConfig().(*Config)
	tt, _ := f.CreateTracesToTraces(ctx, set, cfg, consumertest.NewNop())
	tm, _ := f.CreateTracesToMetrics(ctx, set, cfg, consumertest.NewNop())
	second, _ := f.CreateTracesToMetrics(ctx, outSet, outlet("citetracesummary"), consumertest.NewNop())
	if err := second.Start(ctx, host); err == nil || !strings.Contains(err.Error(), "already sends its metrics") {
		t.Errorf("a second metrics pipeline for one connector: %v", err)
	}
	for _, n := range []component.Component{tt, tm, second} {
		if err := n.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
