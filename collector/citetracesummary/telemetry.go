// The connector's own telemetry, through the component's MeterProvider: every bound that bites and every span
// left out of the summary is counted where the collector's operators look (its /metrics endpoint).
package citetracesummary

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/citetrace/citetracesummary/internal/names"
)

type telemetry struct {
	logger                                     *zap.Logger
	droppedC, evictedC, refusedC, lateC, runsC metric.Int64Counter
	exportErrC                                 metric.Int64Counter
	once                                       sync.Once
}

func newTelemetry(set component.TelemetrySettings, inFlight func() int64) (*telemetry, error) {
	meter := set.MeterProvider.Meter(scopeName)
	t := &telemetry{logger: set.Logger}
	var err error
	mk := func(name, doc string) metric.Int64Counter {
		if err != nil {
			return nil
		}
		var c metric.Int64Counter
		c, err = meter.Int64Counter(name, metric.WithDescription(doc), metric.WithUnit("1"))
		return c
	}
	t.droppedC = mk("otelcol_citetracesummary_spans_dropped", "Spans left out of the summary by a per-trace bound, by reason (they still pass through).")
	t.evictedC = mk("otelcol_citetracesummary_traces_evicted", "Trace states evicted before their grace period ended, by reason.")
	t.refusedC = mk("otelcol_citetracesummary_spans_refused", "citetrace spans left out of the summary: bad ids or a wrongly typed attribute, by reason.")
	t.lateC = mk("otelcol_citetracesummary_late_spans", "Spans of traces already finalised (ignored by the summary).")
	t.runsC = mk("otelcol_citetracesummary_runs", "Runs summarised.")
	t.exportErrC = mk("otelcol_citetracesummary_export_errors", "Summarised roots or metrics the next consumer refused, by signal.")
	if err != nil {
		return nil, err
	}
	_, err = meter.Int64ObservableGauge("otelcol_citetracesummary_traces_in_flight",
		metric.WithDescription("Traces with state held by the connector."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(inFlight())
			return nil
		}))
	return t, err
}

func reason(r string) metric.AddOption {
	return metric.WithAttributes(attribute.String(names.LabelReason, r))
}

func (t *telemetry) dropped(ctx context.Context, r string, n int) {
	if n > 0 {
		t.droppedC.Add(ctx, int64(n), reason(r))
	}
}

func (t *telemetry) evicted(ctx context.Context, r string) { t.evictedC.Add(ctx, 1, reason(r)) }

func (t *telemetry) refused(ctx context.Context, invalid, mistyped int) {
	if invalid > 0 {
		t.refusedC.Add(ctx, int64(invalid), reason(names.RejectInvalidSpan))
	}
	if mistyped > 0 {
		t.refusedC.Add(ctx, int64(mistyped), reason(names.RejectAttributeType))
	}
}

func (t *telemetry) late(ctx context.Context, n int) {
	if n > 0 {
		t.lateC.Add(ctx, int64(n))
	}
}

func (t *telemetry) runs(ctx context.Context, n int) {
	if n > 0 {
		t.runsC.Add(ctx, int64(n))
	}
}

func (t *telemetry) exportError(ctx context.Context, signal string) {
	t.exportErrC.Add(ctx, 1, metric.WithAttributes(attribute.String("signal", signal)))
}

// problem logs the first wrongly typed attribute once (the rest are only counted).
func (t *telemetry) problem(p string) {
	t.once.Do(func() {
		t.logger.Warn("citetracesummary: a span with a wrongly typed attribute is left out of the summary (logged once; counted in otelcol_citetracesummary_spans_refused)", zap.String("problem", p))
	})
}
