# citetrace image. Default command: `citetrace serve` (the summarizer behind the OpenTelemetry Collector).
# The same image runs the demo agents (`citetrace demo --loop ...`) and the run browser (`citetrace ui`).
# The service binds 127.0.0.1 unless CITETRACE_SERVE_HOST says otherwise; docker-compose.yml sets 0.0.0.0
# inside the container and publishes the ports on 127.0.0.1 of the host only.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md hatch_build.py ./
COPY src ./src
RUN pip install ".[serve,demo,view]" \
    && useradd --create-home --uid 10001 citetrace \
    && mkdir -p /data \
    && chown citetrace /data

USER citetrace
WORKDIR /data
ENV CITETRACE_STORE=sqlite:////data/store.db

# OTLP/HTTP receiver (POST /v1/traces, GET /healthz) and Prometheus /metrics
EXPOSE 4319 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('CITETRACE_SERVE_PORT', '4319') + '/healthz', timeout=2)"]
ENTRYPOINT ["citetrace"]
CMD ["serve"]
