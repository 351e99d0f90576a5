"""The overview's growth chart as plain data: bars over time, drawn as SVG by the template.

Pure functions over ``(day, type, count)`` rows, so the binning is tested without a database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Protocol

import msgspec

# At most this many bars: a span longer than it in days is binned by week, then by month.
MAX_BARS = 60
# Colours of the stacked segments, by fact type (the stylesheet's palette); others share "other".
TYPE_ORDER = ("world", "experience", "observation")


class DayCount(Protocol):
    """A row of ``BrowseService.activity``."""

    @property
    def day(self) -> date: ...  # noqa: D102

    @property
    def type(self) -> str: ...  # noqa: D102

    @property
    def count(self) -> int: ...  # noqa: D102


class Bar(msgspec.Struct, frozen=True, kw_only=True):
    """One bin: its first day, its label, and how many memories of each type fall in it."""

    start: date
    label: str
    counts: dict[str, int]

    @property
    def total(self) -> int:
        """Memories in the bin."""
        return sum(self.counts.values())


class Chart(msgspec.Struct, frozen=True, kw_only=True):
    """Bars oldest first, the bin size used and the tallest bar (for scaling)."""

    bars: list[Bar]
    unit: str
    peak: int
    types: list[str]


def _month(day: date) -> date:
    return day.replace(day=1)


def _week(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _step(start: date, unit: str) -> date:
    if unit == "day":
        return start + timedelta(days=1)
    if unit == "week":
        return start + timedelta(days=7)
    return (start.replace(day=28) + timedelta(days=4)).replace(day=1)


def _unit(first: date, last: date) -> str:
    span = (last - first).days + 1
    if span <= MAX_BARS:
        return "day"
    if span <= MAX_BARS * 7:
        return "week"
    return "month"


def _label(start: date, unit: str) -> str:
    return start.strftime("%Y-%m") if unit == "month" else start.isoformat()


def activity_bars(rows: Iterable[DayCount]) -> Chart:
    """Bin day counts into at most ``MAX_BARS`` bars (day, week or month), empty bins kept.

    A span too long even for monthly bars keeps its most recent ``MAX_BARS`` months.
    """
    rows = list(rows)
    if not rows:
        return Chart(bars=[], unit="day", peak=0, types=[])
    days = sorted(r.day for r in rows)
    unit = _unit(days[0], days[-1])
    key = {"day": lambda d: d, "week": _week, "month": _month}[unit]
    bins: dict[date, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        bins[key(r.day)][r.type or "other"] += r.count
    bars: list[Bar] = []
    start, end = key(days[0]), key(days[-1])
    while start <= end:
        bars.append(Bar(start=start, label=_label(start, unit), counts=dict(bins.get(start, {}))))
        start = _step(start, unit)
    bars = bars[-MAX_BARS:]
    return Chart(
        bars=bars,
        unit=unit,
        peak=max(b.total for b in bars),
        types=_types(b.counts for b in bars),
    )


def _types(counts: Iterable[dict[str, int]]) -> list[str]:
    seen = {t for c in counts for t in c}
    return [t for t in TYPE_ORDER if t in seen] + sorted(seen - set(TYPE_ORDER))


def segments(
    bar: Bar, types: Sequence[str], peak: int, height: float
) -> list[tuple[str, float, float]]:
    """Stacked segments of a bar, bottom up: ``(type, y, h)`` in a box ``height`` tall."""
    out: list[tuple[str, float, float]] = []
    y = height
    for t in types:
        n = bar.counts.get(t, 0)
        if not n or not peak:
            continue
        h = height * n / peak
        y -= h
        out.append((t, round(y, 2), round(h, 2)))
    return out
