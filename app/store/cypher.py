"""The Cypher registry: every statement lives in ``cypher/<area>/<name>.cypher``, loaded by name.

Each file opens with a ``//`` header saying what it answers, its ``$parameters`` and whether it
reads or writes (``// mode: read`` or ``// mode: write``); the mode picks the driver's routing.
Values always travel as parameters. The few things Cypher cannot parameterise (a hop bound, a
label) go through :func:`identifier` or :func:`bounded_int` before they are spliced.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import msgspec

Mode = Literal["read", "write", "schema"]

CYPHER_ROOT = Path(__file__).resolve().parents[2] / "cypher"

_MODE_LINE = re.compile(r"^//\s*mode:\s*(read|write|schema)\s*$", re.MULTILINE)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


class Statement(msgspec.Struct, frozen=True):
    """One loaded Cypher file."""

    name: str
    text: str
    mode: Mode
    path: Path


class CypherRegistry:
    """Statements by name (``"banks/get"`` for ``cypher/banks/get.cypher``)."""

    def __init__(self, statements: dict[str, Statement]) -> None:
        self._statements = statements

    @classmethod
    def load(cls, root: Path = CYPHER_ROOT) -> CypherRegistry:
        """Read every ``.cypher`` file under ``root`` once."""
        if not root.is_dir():
            raise FileNotFoundError(f"Cypher folder not found: {root}")
        statements: dict[str, Statement] = {}
        for path in sorted(root.rglob("*.cypher")):
            name = path.relative_to(root).with_suffix("").as_posix()
            text = path.read_text(encoding="utf-8")
            match = _MODE_LINE.search(text)
            if match is None:
                raise ValueError(f"{path}: header lacks a '// mode: read|write|schema' line")
            mode: Mode = match.group(1)  # type: ignore[assignment]
            statements[name] = Statement(name=name, text=text.strip(), mode=mode, path=path)
        return cls(statements)

    def __getitem__(self, name: str) -> Statement:
        try:
            return self._statements[name]
        except KeyError:
            raise KeyError(f"no Cypher statement named {name!r} under cypher/") from None

    def names(self, prefix: str = "") -> list[str]:
        """Statement names, optionally those under one area (``"schema/"``)."""
        return sorted(n for n in self._statements if n.startswith(prefix))


def identifier(value: str) -> str:
    """Validate a label or relationship type before it is spliced into Cypher."""
    if not _IDENTIFIER.match(value):
        raise ValueError(f"not a safe Cypher identifier: {value!r}")
    return value


def bounded_int(value: int, low: int, high: int) -> int:
    """Validate an integer (e.g. a hop bound) before it is spliced into Cypher."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"expected an integer in [{low}, {high}], got {value!r}")
    return value
