"""The offline mental model page: reflect's extractive answer laid out as sections.

Pure functions. The page has an ``overview`` section (the question, how many memories, their
span), an ``observations`` section when there are any, then one section per calendar month of
the quoted facts (ids like ``2023-05``, oldest first) and ``undated`` last. Months are the
sections because they are stable: new evidence mostly lands in a new month, so a refresh
edits one section and leaves the others byte-for-byte as they were, and the history shows
which months changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.reflect.extractive import Evidence, Item, bullet, format_day, select
from app.reflect.schemas import Section

# Facts of one source chunk are one bullet (as in the extractive answer).
_ALL = 10_000


def offline_page(query: str, evidence: Sequence[Evidence]) -> list[Section]:
    """Sections for the quoted ``evidence`` (in the order reflect quoted it)."""
    observations = [e for e in evidence if e.type == "observation"]
    facts = [e for e in evidence if e.type != "observation"]
    items = select(observations, facts, _ALL)
    if not items:
        return [
            Section(
                id="overview",
                title="Overview",
                text=f"Question: {query.strip()}\n\nNothing in this bank answers it yet.",
            )
        ]
    sections = [_overview(query, items)]
    observed = [i for i in items if i.facts[0].type == "observation"]
    if observed:
        sections.append(_section("observations", "Observations", observed))
    months: dict[str, list[Item]] = {}
    for item in items:
        if item.facts[0].type == "observation":
            continue
        when = item.when
        months.setdefault(f"{when:%Y-%m}" if when else "undated", []).append(item)
    for key in sorted(k for k in months if k != "undated"):
        ordered = sorted(months[key], key=lambda i: (i.when, i.facts[0].id))
        title = f"{months[key][0].when:%B %Y}"
        sections.append(_section(key, title, ordered))
    if "undated" in months:
        sections.append(_section("undated", "Undated", months["undated"]))
    return sections


def _overview(query: str, items: Sequence[Item]) -> Section:
    dates = sorted(i.when for i in items if i.when is not None)
    count = sum(len(i.facts) for i in items)
    span = ""
    if dates:
        first, last = format_day(dates[0]), format_day(dates[-1])
        span = f", from {first}" + (f" to {last}" if last != first else "")
    text = (
        f"Question: {query.strip()}\n\n"
        f"Drawn from {count} memor{'y' if count == 1 else 'ies'}{span}, quoted below by month, "
        "each with the id of the memory it comes from."
    )
    return Section(id="overview", title="Overview", text=text)


def _section(section_id: str, title: str, items: Sequence[Item]) -> Section:
    return Section(
        id=section_id,
        title=title,
        text="\n".join(bullet(i) for i in items),
        memory_ids=[f.id for i in items for f in i.facts],
    )
