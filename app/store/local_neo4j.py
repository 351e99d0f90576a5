"""The embedded default: start (or reuse) the local Neo4j that ``scripts/neo4j`` provisions."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from app.config import Settings
from app.errors import Unavailable

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "neo4j"


def _script_env(settings: Settings) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MNEMO_DATA_DIR=str(settings.data_path),
        MNEMO_NEO4J_BOLT_PORT=str(settings.neo4j_bolt_port),
        MNEMO_NEO4J_HTTP_PORT=str(settings.neo4j_http_port),
    )
    return env


def neo4j_script(settings: Settings, command: str, *, quiet: bool = False) -> int:
    """Run ``scripts/neo4j COMMAND`` for this data directory and these ports."""
    if not SCRIPT.exists():
        # An installed package has no scripts/ folder: the local Neo4j is a checkout's default.
        raise Unavailable(
            "no local Neo4j in this installation (scripts/neo4j ships with a checkout): "
            "set MNEMO_NEO4J_URI to a Neo4j 5 server"
        )
    completed = subprocess.run(
        [str(SCRIPT), command],
        env=_script_env(settings),
        check=False,
        stdout=subprocess.DEVNULL if quiet else None,
    )
    return completed.returncode


def ensure_local_neo4j(settings: Settings) -> None:
    """Start the local server unless it already runs; raise when it cannot start."""
    if neo4j_script(settings, "start") != 0:
        raise Unavailable("the local Neo4j did not start; see the messages above")
