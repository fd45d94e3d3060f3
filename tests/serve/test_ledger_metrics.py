"""citetrace serve derives the claim ledger's metrics from iteration and root spans, as the controller does."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from citetrace.demo._ledger_demo import run_ledger_demo
from citetrace.ledger._metrics import LedgerMetrics
from citetrace.serve._assembler import Assembler
from citetrace.summary import SpanRecord, SummaryMetrics, Thresholds
from citetrace.testing import capture_spans

from citetrace.serve import decode_body, encode_request
from citetrace.serve._schema import SUMMARY_INPUTS

from .test_assembler import Clock

_NAMES = ("citetrace_ledger_iterations_total", "citetrace_ledger_flat_iterations_total",
          "citetrace_ledger_tool_calls_total", "citetrace_ledger_new_evidence_total",
          "citetrace_ledger_status_flips_total", "citetrace_ledger_stops_total", "citetrace_ledger_unresolved_claims")


def _samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in registry.collect() for s in family.samples if s.name.startswith(_NAMES)
            and not s.name.endswith("_created")}


def test_serve_counts_what_the_controller_counts() -> None:
    """The demo's four scenarios, once embedded and once through serve's OTLP path, give the same series."""
    embedded = CollectorRegistry()
    from citetrace import _telemetry

    with capture_spans() as cap:
        _telemetry.current().registry = embedded  # what configure() would have set up
        run_ledger_demo()
    served = SummaryMetrics(CollectorRegistry())
    assembler = Assembler(metrics=served, thresholds=Thresholds(), clock=Clock())
    request = encode_request([SpanRecord.from_readable_span(s) for s in cap.spans], service_name="svc")
    # decoded as the service does: only the attributes it reads (the ledger's vital signs among them)
    spans = decode_body(request.SerializeToString(), "application/x-protobuf", SUMMARY_INPUTS).spans
    assembler.add(spans)
    assembler.add(spans)  # a retried request counts nothing twice
    want = _samples(embedded)
    assert want[("citetrace_ledger_stops_total", (("agent", "demo-ledger"), ("reason", "goal_satisfied")))] == 3
    assert want[("citetrace_ledger_status_flips_total", (("agent", "demo-ledger"),))] == 3
    assert _samples(served.registry) == want


def test_bad_attributes_are_ignored_not_raised() -> None:
    """An iteration span with an unknown trigger or a root with an unknown stop reason adds nothing."""
    registry = CollectorRegistry()
    metrics = LedgerMetrics.for_registry(registry)
    metrics.observe_span({"citetrace.ledger.trigger": "bogus", "citetrace.ledger.unresolved_claims": 1})
    metrics.observe_span({"citetrace.ledger.stop_reason": "bogus", "gen_ai.operation.name": "invoke_agent"})
    assert _samples(registry) == {}
