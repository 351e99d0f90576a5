"""The Cypher registry: every statement lives in ``cypher/<area>/<name>.cypher``, loaded by name.

Each file opens with a ``//`` header saying what it answers, its ``$parameters`` (a
``// params:`` line, continued on ``//``-lines indented by two or more spaces; ``none`` when
there are none) and whether it reads or writes (``// mode: read`` or ``// mode: write``); the
mode picks the driver's routing. Values always travel as parameters: no statement is ever
formatted with input, so nothing is spliced into Cypher (``tests/integration/test_cypher.py``
checks that every header names exactly the parameters its body uses, and plans every statement).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import msgspec

Mode = Literal["read", "write", "schema"]

# app/cypher: a link to the top-level cypher/ in a checkout, the files themselves in a wheel.
CYPHER_ROOT = Path(__file__).resolve().parents[1] / "cypher"

_MODE_LINE = re.compile(r"^//\s*mode:\s*(read|write|schema)\s*$", re.MULTILINE)
_PARAMS_LINE = re.compile(r"^//\s*params:(.*)$")
_CONTINUATION = re.compile(r"^//\s{2,}(.*)$")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


class Statement(msgspec.Struct, frozen=True):
    """One loaded Cypher file."""

    name: str
    text: str
    mode: Mode
    path: Path

    @property
    def declared_params(self) -> frozenset[str]:
        """The parameters the header's ``// params:`` line (and its continuations) names."""
        names: set[str] = set()
        reading = False
        for line in self.text.splitlines():
            if not line.startswith("//"):
                break
            match = _PARAMS_LINE.match(line) or (_CONTINUATION.match(line) if reading else None)
            reading = match is not None
            if match is not None:
                names.update(_PARAM.findall(match.group(1)))
        return frozenset(names)

    @property
    def used_params(self) -> frozenset[str]:
        """The parameters the body uses (outside comments and string literals)."""
        body = "\n".join(
            _STRING.sub("''", line).split("//")[0]
            for line in self.text.splitlines()
            if not line.lstrip().startswith("//")
        )
        return frozenset(_PARAM.findall(body))


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
