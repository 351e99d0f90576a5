"""What the benchmark scripts share: which Neo4j they run against, with which credentials,
and when the service they serve settles.

The default is the test Neo4j (its own data directory and ports, the ones ``scripts/test``
uses), started if it is not running, so a benchmark never touches the service's data.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.config import load_settings
from app.store.local_neo4j import LOCAL_USER, neo4j_script, read_password

ROOT = Path(__file__).resolve().parents[1]
TEST_BOLT_PORT = 7697
TEST_HTTP_PORT = 7484
# A settle timer that never fires within a run (``settle_timing``).
NEVER_MS = 3_600_000.0
# What ``--settle-after`` says, for the scripts that take it.
SETTLE_AFTER_HELP = (
    "settle once the queued writes touched N entities (and before the read-back), not on the "
    "service's timers: which writes a settle covers does not depend on the machine's pace"
)


def benchmark_neo4j_auth() -> dict[str, str]:
    """Settings overrides for the Neo4j credentials.

    ``MNEMO_NEO4J_USER``/``MNEMO_NEO4J_PASSWORD`` when set, else the password that
    ``scripts/neo4j`` generated for the test Neo4j (``MNEMO_TEST_DATA_DIR``, default
    ``.data/test``).
    """
    user = os.environ.get("MNEMO_NEO4J_USER")
    if user:
        return {"neo4j_user": user, "neo4j_password": os.environ.get("MNEMO_NEO4J_PASSWORD", "")}
    test_dir = Path(os.environ.get("MNEMO_TEST_DATA_DIR") or ROOT / ".data" / "test")
    password = read_password(test_dir)
    return {"neo4j_user": LOCAL_USER, "neo4j_password": password} if password else {}


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


def settle_timing(settle_after: int | None) -> dict[str, object]:
    """Settings overrides that settle each time the queued writes touched ``settle_after``
    entities, with timers that never fire; none (the service's timers) when it is not given.

    A settle runs behind the writes on timers (decision 0018), so which writes one settle
    covers depends on the machine's pace; a count makes it the same on any machine (a write
    that arrives while a settle reads can still fall either side of it).
    """
    if not settle_after:
        return {}
    return {
        "settle_max_entities": settle_after,
        "settle_delay_ms": NEVER_MS,
        "settle_max_wait_ms": NEVER_MS,
    }
