"""Run one of scripts/ (a benchmark at CI size) against a given Neo4j; its stdout, or fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import neo4j_test_env

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def run_script(name: str, *args: str, neo4j_uri: str, timeout: float = 600) -> str:
    """``scripts/NAME ARGS`` with ``MNEMO_NEO4J_URI``; asserts it exits 0, returns stdout."""
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / name), *args],
        env={**os.environ, **neo4j_test_env(), "MNEMO_NEO4J_URI": neo4j_uri},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout
