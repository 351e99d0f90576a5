"""Plain-text output for the ``mnemo`` command line: tables, JSON, a progress bar.

No dependency beyond the standard library and msgspec; everything writes to the stream it is
given (``sys.stdout`` for results, ``sys.stderr`` for progress and messages).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TextIO

import msgspec

ELLIPSIS = "…"


def cell(value: Any, width: int | None = None) -> str:
    """One value as table text: dates without microseconds, lists joined, cut to ``width``."""
    if value is None:
        text = ""
    elif isinstance(value, datetime):
        text = value.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, float):
        text = f"{value:.4g}"
    elif isinstance(value, list | tuple):
        text = ", ".join(cell(v) for v in value)
    elif isinstance(value, dict | msgspec.Struct):
        text = msgspec.json.encode(value).decode()
    else:
        text = str(value)
    text = " ".join(text.split())  # one line per row
    if width is not None and len(text) > width:
        text = text[: max(width - 1, 0)] + ELLIPSIS
    return text


def table(
    out: TextIO,
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str] | None = None,
    *,
    widths: Mapping[str, int] | None = None,
) -> None:
    """Write ``rows`` as aligned columns under a header (``(none)`` when there are none)."""
    if not rows:
        out.write("(none)\n")
        return
    names = list(columns) if columns else list(dict.fromkeys(k for r in rows for k in r))
    limits = widths or {}
    text = [[cell(r.get(c), limits.get(c, 60)) for c in names] for r in rows]
    sizes = [max(len(c), *(len(t[i]) for t in text)) for i, c in enumerate(names)]
    out.write("  ".join(c.upper().ljust(s) for c, s in zip(names, sizes, strict=True)).rstrip())
    out.write("\n")
    for t in text:
        out.write("  ".join(v.ljust(s) for v, s in zip(t, sizes, strict=True)).rstrip() + "\n")


def fields(out: TextIO, values: Mapping[str, Any]) -> None:
    """Write ``key: value`` lines, keys aligned (empty values left out)."""
    shown = {k: v for k, v in values.items() if v not in (None, "", [], {})}
    size = max((len(k) for k in shown), default=0)
    for key, value in shown.items():
        out.write(f"{key.ljust(size)}  {cell(value)}\n")


def write_json(out: TextIO, value: Any) -> None:
    """Write ``value`` (Structs included) as indented JSON."""
    out.write(msgspec.json.format(msgspec.json.encode(value), indent=2).decode())
    out.write("\n")


class ProgressBar:
    """A text progress bar: redrawn in place on a terminal, a line now and then otherwise.

    Called as ``progress(phase, done, total)``; ``total`` None shows a count without a bar.
    """

    def __init__(self, out: TextIO, *, width: int = 30, interval_s: float | None = None) -> None:
        self._out = out
        self._width = width
        self._tty = out.isatty()
        self._interval = interval_s if interval_s is not None else (0.1 if self._tty else 2.0)
        self._phase: str | None = None
        self._last = 0.0
        self._drawn = ""
        self._state: tuple[str, int, int | None] | None = None

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        """Show that ``done`` of ``total`` units of ``phase`` are done."""
        state = (phase, done, total)
        if state == self._state:
            return
        now = time.monotonic()
        new_phase = phase != self._phase
        finished = total is not None and done >= total
        if new_phase:
            self._end_line()
            self._phase = phase
        elif not finished and now - self._last < self._interval:
            return
        self._last = now
        self._state = state
        self._draw(render(phase, done, total, self._width))

    def close(self) -> None:
        """End the current line."""
        self._end_line()

    def _draw(self, text: str) -> None:
        if self._tty:
            self._out.write("\r" + text.ljust(len(self._drawn)))
            self._drawn = text
        else:
            self._out.write(text + "\n")
        self._out.flush()

    def _end_line(self) -> None:
        if self._tty and self._drawn:
            self._out.write("\n")
            self._out.flush()
        self._drawn = ""


def render(phase: str, done: int, total: int | None, width: int = 30) -> str:
    """One progress line: ``retain  [#####.....]  50%  5/10``."""
    if not total:
        return f"{phase:<10} {done}"
    fraction = min(max(done / total, 0.0), 1.0)
    filled = round(fraction * width)
    bar = "#" * filled + "." * (width - filled)
    return f"{phase:<10} [{bar}] {fraction:4.0%}  {done}/{total}"
