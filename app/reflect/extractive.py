"""The offline answer: the strongest evidence quoted, dated and cited, as short Markdown.

Pure functions over :class:`Evidence` (no I/O, no clock). What it is: a faithful digest of what
the bank holds about a question, each quoted memory followed by its id in brackets, ``[id]``.
What it is not: a conclusion. It does not paraphrase, infer, compute dates or resolve
contradictions; two memories that disagree are both quoted.

Selection. Observations come first (each is a claim several facts support), then facts, in
recall's order. Facts cut from the same source chunk (offline extraction cuts a message into
sentences) are quoted together as one item, so that the item count, which the budget bounds,
counts distinct sources: quoting three sentences of one message as three items would crowd out
two other messages. Order: by strength, or by time for a question about when something
happened, since the answer to "when" is the timeline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

import msgspec

from app.recall.budget import estimate_tokens
from app.reflect.schemas import ReflectFact

# "When did…", "what date/year/month/day…", "how long ago/since…", "since when".
_WHEN = re.compile(
    r"\b(when|since when|what (?:date|day|year|month|time)|which (?:date|day|year|month)|"
    r"how long (?:ago|since|before|after))\b",
    re.IGNORECASE,
)
NOTHING = "Nothing in this bank answers this."


# A memory a tool or recall returned, as reflect quotes and cites it: the shape ``based_on``
# lists, so what the answer quotes is exactly what it reports.
Evidence = ReflectFact


class Item(msgspec.Struct, frozen=True):
    """One quoted source: the facts of one chunk (or one observation)."""

    facts: tuple[Evidence, ...]

    @property
    def when(self) -> datetime | None:
        """The event time of its first dated fact, else when it was said."""
        for fact in self.facts:
            if fact.occurred_start is not None:
                return fact.occurred_start
        return min((f.mentioned_at for f in self.facts if f.mentioned_at), default=None)


def is_when_question(query: str) -> bool:
    """True for a question about when something happened (answered as a timeline)."""
    return bool(_WHEN.search(query))


def select(observations: Sequence[Evidence], facts: Sequence[Evidence], limit: int) -> list[Item]:
    """At most ``limit`` items: observations first, then facts grouped by source chunk."""
    items: list[list[Evidence]] = []
    by_chunk: dict[str, list[Evidence]] = {}
    seen: set[str] = set()
    for evidence in [*observations, *facts]:
        if evidence.id in seen:
            continue
        seen.add(evidence.id)
        key = evidence.chunk_id if evidence.type != "observation" else None
        if key is not None and key in by_chunk:
            by_chunk[key].append(evidence)
            continue
        if len(items) == limit:
            continue
        group = [evidence]
        items.append(group)
        if key is not None:
            by_chunk[key] = group
    return [Item(tuple(group)) for group in items]


def order(items: Sequence[Item], query: str) -> list[Item]:
    """Strongest first, or oldest first (undated last) for a "when" question."""
    if not is_when_question(query):
        return list(items)
    dated = [i for i in items if i.when is not None]
    undated = [i for i in items if i.when is None]
    return sorted(dated, key=lambda i: i.when or datetime.min) + undated


def format_day(at: datetime) -> str:
    """``8 May 2023``."""
    return f"{at.day} {at:%B %Y}"


def date_label(fact: Evidence) -> str | None:
    """The fact's event date or span, else the day it was said (``said 8 May 2023``)."""
    start, end = fact.occurred_start, fact.occurred_end
    if start is not None:
        if end is None or end.date() == start.date():
            return format_day(start)
        if (start.year, start.month) == (end.year, end.month):
            return f"{start.day}–{format_day(end)}"
        return f"{format_day(start)} – {format_day(end)}"
    if fact.mentioned_at is not None:
        return f"said {format_day(fact.mentioned_at)}"
    return None


def quote(fact: Evidence) -> str:
    """The fact's text as one line, followed by its citation."""
    text = " ".join(fact.text.split())
    return f"{text} [{fact.id}]"


def bullet(item: Item) -> str:
    """One Markdown bullet: the date in bold, then each fact of the item with its citation."""
    first = item.facts[0]
    label = "Observation" if first.type == "observation" else date_label(first)
    body = " ".join(quote(f) for f in item.facts)
    return f"- **{label}**: {body}" if label else f"- {body}"


def answer(
    query: str,
    items: Sequence[Item],
    *,
    max_tokens: int,
    preface: Sequence[str] = (),
) -> tuple[str, list[Evidence]]:
    """The Markdown answer and exactly the memories it quotes.

    Bullets are added in order while the text fits ``max_tokens`` (recall's token estimate);
    the answer is always a prefix of the ordered items, like recall's budget.
    """
    ordered = order(items, query)
    if not ordered:
        return "\n\n".join([*preface, NOTHING]), []
    head = [
        *preface,
        f"What the bank holds on this, {_order_words(query)}, each memory cited by id:",
    ]
    lines: list[str] = []
    quoted: list[Evidence] = []
    used = estimate_tokens("\n\n".join(head))
    for item in ordered:
        line = bullet(item)
        cost = estimate_tokens(line) + 1
        if used + cost > max_tokens:
            break
        lines.append(line)
        quoted.extend(item.facts)
        used += cost
    if not lines:
        return "\n\n".join([*preface, NOTHING]), []
    return "\n\n".join(head) + "\n\n" + "\n".join(lines), quoted


def _order_words(query: str) -> str:
    return "oldest first" if is_when_question(query) else "strongest first"
