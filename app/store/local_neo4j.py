"""The embedded default: start (or reuse) the local Neo4j that ``scripts/neo4j`` provisions.

The local server runs with authentication: ``scripts/neo4j`` generates the password of the user
``neo4j`` under the data folder, and Mnemo reads it from there.
"""

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


LOCAL_USER = "neo4j"


def password_file(data_dir: Path) -> Path:
    """Where ``scripts/neo4j`` keeps the local server's password (mode 0600)."""
    return data_dir / "neo4j" / "password"


def read_password(data_dir: Path) -> str | None:
    """The local server's password, or None when it has not been generated yet."""
    try:
        return password_file(data_dir).read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def neo4j_auth(settings: Settings) -> tuple[str, str] | None:
    """The credentials to connect with: the configured ones, else the local server's."""
    if settings.neo4j_user:
        return settings.neo4j_user, settings.neo4j_password or ""
    if settings.uses_local_neo4j:
        password = read_password(settings.data_path)
        if password is not None:
            return LOCAL_USER, password
    return None


def ensure_local_neo4j(settings: Settings) -> None:
    """Start the local server unless it already runs; raise when it cannot start."""
    if neo4j_script(settings, "start") != 0:
        raise Unavailable("the local Neo4j did not start; see the messages above")
