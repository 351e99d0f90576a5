"""What the benchmark scripts share: which Neo4j they run against.

The default is the test Neo4j (its own data directory and ports, the ones ``scripts/test``
uses), started if it is not running, so a benchmark never touches the service's data.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.config import load_settings
from app.store.local_neo4j import neo4j_script

ROOT = Path(__file__).resolve().parents[1]
TEST_BOLT_PORT = 7697
TEST_HTTP_PORT = 7484


def benchmark_neo4j_uri(explicit: str | None) -> str:
    """``explicit`` (``--neo4j-uri``), else ``MNEMO_NEO4J_URI``, else the test Neo4j (started)."""
    uri = explicit or os.environ.get("MNEMO_NEO4J_URI")
    if uri:
        return uri
    test = load_settings(
        {},
        data_dir=str(ROOT / ".data" / "test"),
        neo4j_bolt_port=TEST_BOLT_PORT,
        neo4j_http_port=TEST_HTTP_PORT,
    )
    if neo4j_script(test, "start", quiet=True) != 0:
        raise SystemExit("could not start the test Neo4j; pass --neo4j-uri")
    return test.bolt_uri
