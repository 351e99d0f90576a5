"""Run the real ``mnemo`` command line as a subprocess against the test server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[2]


class Cli:
    """``mnemo`` bound to one server URL (and, for ``cypher``, the test Neo4j)."""

    def __init__(self, url: str, *, env: Mapping[str, str] | None = None) -> None:
        self.url = url
        # The service's own MNEMO_* settings never leak into the command under test.
        base = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
        self.env = {**base, **(env or {})}

    def run(
        self, *args: str, input: str | None = None, url: bool = True, expect: int | None = 0
    ) -> subprocess.CompletedProcess[str]:
        """Run ``mnemo ARGS [--url URL]``; check the exit status unless ``expect`` is None."""
        command = [sys.executable, "-m", "app.cli", *args, *(("--url", self.url) if url else ())]
        done = subprocess.run(
            command,
            input=input,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=self.env,
            timeout=600,
            check=False,
        )
        if expect is not None:
            assert done.returncode == expect, (
                f"mnemo {' '.join(args)} exited {done.returncode}, expected {expect}\n"
                f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
            )
        return done

    def json(self, *args: str, input: str | None = None, url: bool = True) -> Any:
        """Run with ``--json`` and decode stdout."""
        return msgspec.json.decode(self.run(*args, "--json", input=input, url=url).stdout)
