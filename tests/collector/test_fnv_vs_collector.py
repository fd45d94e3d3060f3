"""The Python replica of the collector's probabilistic hash keeps exactly what the built collector keeps."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
import yaml

from citetrace.serve._encode import encode_request
from citetrace.summary import SpanRecord, keep_by_hash
from citetrace.summary._fnv import collector_threshold

from ._harness import collector_binary, free_port, http_post, read_otlp_json_lines, start_collector, wait_until

N_TRACES = 4000

# calculateThreshold(pct / 100) printed by the Go code of tailsamplingprocessor v0.161.0
# (internal/sampling/probabilistic.go, big.Float at 64-bit precision, truncated).
GO_THRESHOLDS = {
    2.0: 368934881474191039,
    0.5: 92233720368547759,
    12.345: 2277250555899444223,
    50.0: 9223372036854775807,
    100.0: 18446744073709551615,
    0.0001: 18446744073709,
}


@pytest.mark.parametrize("percent", sorted(GO_THRESHOLDS))
def test_threshold_matches_go(percent: float) -> None:
    """collector_threshold reproduces the collector's big.Float threshold exactly, not the float shortcut."""
    assert collector_threshold(percent) == GO_THRESHOLDS[percent]


def _config(tmp: Path, salt: str, percent: float, http_port: int, health_port: int, out: Path) -> Path:
    probabilistic: dict[str, object] = {"sampling_percentage": percent}
    if salt:
        probabilistic["hash_salt"] = salt
    config = {
        "extensions": {"health_check": {"endpoint": f"127.0.0.1:{health_port}"}},
        "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{http_port}"}}}},
        "processors": {"tail_sampling": {
            "decision_wait": "1s", "num_traces": N_TRACES * 2,
            "policies": [{"name": "sample", "type": "probabilistic", "probabilistic": probabilistic}],
        }},
        "exporters": {"file": {"path": str(out), "flush_interval": "100ms"}},
        "service": {
            "extensions": ["health_check"],
            "telemetry": {"metrics": {"level": "none"}, "logs": {"level": "warn"}},
            "pipelines": {"traces": {"receivers": ["otlp"], "processors": ["tail_sampling"], "exporters": ["file"]}},
        },
    }
    path = tmp / "otelcol-probabilistic.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.slow
@pytest.mark.parametrize(("salt", "percent"), [("citetrace", 2.0), ("", 12.5)])
def test_probabilistic_policy_keeps_keep_by_hash_set(tmp_path: Path, salt: str, percent: float) -> None:
    """A probabilistic-only tail sampler in the built collector keeps exactly the trace ids keep_by_hash picks."""
    rng = random.Random(f"{salt}/{percent}")
    trace_ids = [rng.getrandbits(128) | 1 for _ in range(N_TRACES)]
    http_port, health_port = free_port(), free_port()
    out = tmp_path / "kept.jsonl"
    config = _config(tmp_path, salt, percent, http_port, health_port, out)
    env = {"HOME": str(tmp_path)}
    python_salt = salt or "default-hash-seed"  # the collector's default salt
    expected = {f"{t:032x}" for t in trace_ids if keep_by_hash(t, salt=python_salt, percent=percent)}
    assert 0 < len(expected) < N_TRACES

    log = tmp_path / "otelcol.log"
    with start_collector(collector_binary(), [config], env, log, health=f"127.0.0.1:{health_port}") as proc:
        for start in range(0, N_TRACES, 500):
            spans = [
                SpanRecord(trace_id=t, span_id=rng.getrandbits(63) | 1, parent_span_id=None, name="root",
                           start_ns=1_700_000_000_000_000_000, end_ns=1_700_000_000_100_000_000)
                for t in trace_ids[start:start + 500]
            ]
            body = encode_request(spans, service_name="fnv-check").SerializeToString()
            status, answer = http_post(f"http://127.0.0.1:{http_port}/v1/traces", body,
                                       {"Content-Type": "application/x-protobuf"})
            assert status == 200, answer

        def kept() -> set[str]:
            return {s["traceId"] for s in read_otlp_json_lines(out)}

        wait_until(lambda: len(kept()) >= len(expected), 60, f"{len(expected)} kept traces in {out}")
        # every decision is due 1 s after the last span: wait past it, then compare the complete kept set
        time.sleep(3)
        assert proc.alive(), proc.tail()
        assert kept() == expected
