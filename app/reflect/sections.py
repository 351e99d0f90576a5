"""A mental model's page as sections with stable ids: render, parse, edit, compare.

Pure functions over :class:`Section` lists. A page is rendered section by section, each as
``## title``, a blank line and its text, so that a section nobody touched renders to the same
bytes in every version. Ids are given once (from the title at creation, made unique) and never
change: renames and moves keep them, which is what lets an edit operation or a history entry
address a section.

Delta edit operations (what a delta refresh asks a model for), each an object with ``op``:

======== ======================================== ===========================================
op       fields                                   effect
======== ======================================== ===========================================
add      title, text, after?, memory_ids?         new section after ``after`` (end if absent,
                                                  first if null)
replace  id, text, memory_ids?                    the section's text (and evidence) replaced
append   id, text, memory_ids?                    text added at the end of the section
remove   id                                       the section goes
rename   id, title                                the title changes, the id stays
move     id, after                                the section moves after ``after`` (first if
                                                  null)
======== ======================================== ===========================================

An operation that cannot apply (unknown op or section id, a missing field, a title that is
already taken) is skipped and listed with its reason; the others still apply, in order.
Evidence ids outside the ones the refresh offered are dropped from the operation (and listed).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import msgspec

from app.reflect.schemas import Section, SectionChange

OPS = ("add", "replace", "append", "remove", "rename", "move")
_HEADING = re.compile(r"^#{1,3}\s+(.+?)\s*#*\s*$")
_SLUG = re.compile(r"[^a-z0-9]+")
# A page without headings is one section of this title.
DEFAULT_TITLE = "Answer"


def render_section(section: Section) -> str:
    """One section as Markdown: ``## title``, a blank line, its text."""
    return f"## {section.title}\n\n{section.text.strip()}\n"


def render(sections: Sequence[Section]) -> str:
    """The page: its sections in order, a blank line apart."""
    return "\n".join(render_section(s) for s in sections)


def slug(title: str) -> str:
    """A readable id stem from a title (``"Hobbies & pets"`` → ``hobbies-pets``)."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    stem = _SLUG.sub("-", ascii_title.casefold()).strip("-")[:40].strip("-")
    return stem or "section"


def unique_id(stem: str, taken: Collection[str]) -> str:
    """``stem``, or ``stem-2``, ``stem-3`` … whichever is not taken."""
    if stem not in taken:
        return stem
    n = 2
    while f"{stem}-{n}" in taken:
        n += 1
    return f"{stem}-{n}"


def _title_key(title: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", title).casefold().split())


def parse(
    markdown: str, previous: Sequence[Section] = (), memory_ids: Sequence[str] = ()
) -> list[Section]:
    """Cut Markdown into sections at its headings (levels 1-3).

    A section whose title matches a previous section's (case and spacing aside) keeps that
    section's id; others get a new id from their title. Text before the first heading becomes a
    section of :data:`DEFAULT_TITLE`. ``memory_ids`` go to every section whose text cites them
    as ``[id]``, or to the only section when there is one.
    """
    chunks: list[tuple[str, list[str]]] = []
    for line in markdown.strip().splitlines():
        match = _HEADING.match(line)
        if match:
            chunks.append((match.group(1).strip(), []))
        else:
            if not chunks:
                chunks.append((DEFAULT_TITLE, []))
            chunks[-1][1].append(line)
    by_title = {_title_key(s.title): s.id for s in previous}
    taken: set[str] = set()
    out: list[Section] = []
    for title, lines in chunks:
        text = "\n".join(lines).strip()
        if not text and title == DEFAULT_TITLE:
            continue
        known = by_title.get(_title_key(title))
        section_id = known if known and known not in taken else unique_id(slug(title), taken)
        taken.add(section_id)
        cited = [m for m in memory_ids if f"[{m}]" in text]
        out.append(Section(id=section_id, title=title, text=text, memory_ids=cited))
    if len(out) == 1 and not out[0].memory_ids and memory_ids:
        out[0] = msgspec.structs.replace(out[0], memory_ids=list(dict.fromkeys(memory_ids)))
    return out


def page_memory_ids(sections: Iterable[Section]) -> list[str]:
    """Every memory the page rests on, once each, in page order."""
    return list(dict.fromkeys(m for s in sections for m in s.memory_ids))


# -- delta operations -------------------------------------------------------------------------


class _Skip(Exception):
    """An operation that cannot apply; the message says why."""


def apply_operations(
    sections: Sequence[Section],
    operations: Sequence[Any],
    allowed_memory_ids: Collection[str],
) -> tuple[list[Section], list[dict[str, Any]], list[dict[str, Any]]]:
    """Apply edit operations in order; returns the new sections, the applied and the skipped.

    Sections no operation names are passed through unchanged (the same objects), so they
    render to the same bytes.
    """
    page = list(sections)
    applied: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for raw in operations:
        op = dict(raw) if isinstance(raw, Mapping) else {"op": None, "value": raw}
        try:
            page, note = _apply(page, op, allowed_memory_ids)
        except _Skip as why:
            skipped.append({**op, "reason": str(why)})
        else:
            applied.append({**op, **note})
    return page, applied, skipped


def _apply(
    page: list[Section], op: dict[str, Any], allowed: Collection[str]
) -> tuple[list[Section], dict[str, Any]]:
    kind = op.get("op")
    if kind not in OPS:
        raise _Skip(f"unknown op {kind!r}; expected one of {', '.join(OPS)}")
    ids, dropped = _memory_ids(op.get("memory_ids"), allowed)
    note: dict[str, Any] = {"dropped_memory_ids": dropped} if dropped else {}
    if kind == "add":
        title, text = _text(op, "title"), _text(op, "text")
        if any(_title_key(s.title) == _title_key(title) for s in page):
            raise _Skip(f"a section titled {title!r} exists: replace or append to it")
        new = Section(
            id=unique_id(slug(title), {s.id for s in page}), title=title, text=text, memory_ids=ids
        )
        position = _after(page, op) if "after" in op else len(page)
        note["id"] = new.id
        return [*page[:position], new, *page[position:]], note
    index = _find(page, op)
    section = page[index]
    if kind == "remove":
        return [*page[:index], *page[index + 1 :]], note
    if kind == "move":
        if "after" not in op:
            raise _Skip("move needs 'after' (a section id, or null for first)")
        if op["after"] == section.id:
            raise _Skip("a section cannot move after itself")
        rest = [*page[:index], *page[index + 1 :]]
        position = _after(rest, op)
        return [*rest[:position], section, *rest[position:]], note
    if kind == "rename":
        title = _text(op, "title")
        if any(_title_key(s.title) == _title_key(title) and s.id != section.id for s in page):
            raise _Skip(f"another section is titled {title!r}")
        changed = msgspec.structs.replace(section, title=title)
    elif kind == "replace":
        changed = msgspec.structs.replace(section, text=_text(op, "text"), memory_ids=ids)
    else:  # append
        text = f"{section.text.rstrip()}\n{_text(op, 'text')}"
        merged = list(dict.fromkeys([*section.memory_ids, *ids]))
        changed = msgspec.structs.replace(section, text=text, memory_ids=merged)
    return [*page[:index], changed, *page[index + 1 :]], note


def _text(op: Mapping[str, Any], field: str) -> str:
    value = op.get(field)
    if not isinstance(value, str) or not value.strip():
        raise _Skip(f"{op.get('op')} needs a non-empty {field!r}")
    return value.strip()


def _find(page: Sequence[Section], op: Mapping[str, Any]) -> int:
    section_id = op.get("id")
    if not isinstance(section_id, str):
        raise _Skip(f"{op.get('op')} needs 'id' (a section id)")
    for i, section in enumerate(page):
        if section.id == section_id:
            return i
    raise _Skip(f"no section {section_id!r} (sections: {', '.join(s.id for s in page)})")


def _after(page: Sequence[Section], op: Mapping[str, Any]) -> int:
    """Insert position for ``after``: None → first, a section id → right after it."""
    after = op.get("after")
    if after is None:
        return 0
    for i, section in enumerate(page):
        if section.id == after:
            return i + 1
    raise _Skip(f"no section {after!r} to place it after")


def _memory_ids(value: Any, allowed: Collection[str]) -> tuple[list[str], list[str]]:
    if value is None:
        return [], []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Skip("'memory_ids' must be a list of memory ids")
    kept = [v for v in dict.fromkeys(value) if v in allowed]
    return kept, [v for v in dict.fromkeys(value) if v not in allowed]


# -- comparing versions -----------------------------------------------------------------------


def operations_between(old: Sequence[Section], new: Sequence[Section]) -> list[dict[str, Any]]:
    """Edit operations that turn ``old`` into ``new`` when both use the same ids.

    Removals first, then adds, text replacements, renames and moves, so that applying them to
    ``old`` gives ``new`` exactly. Offline refreshes use it: the regenerated page is applied as
    operations, so that untouched sections stay the stored objects.
    """
    old_by_id = {s.id: s for s in old}
    new_ids = {s.id for s in new}
    ops: list[dict[str, Any]] = [{"op": "remove", "id": s.id} for s in old if s.id not in new_ids]
    previous: str | None = None
    for section in new:
        before = old_by_id.get(section.id)
        if before is None:
            ops.append(
                {
                    "op": "add",
                    "title": section.title,
                    "text": section.text,
                    "memory_ids": section.memory_ids,
                    "after": previous,
                    "id": section.id,
                }
            )
        else:
            if before.text != section.text or before.memory_ids != section.memory_ids:
                ops.append(
                    {
                        "op": "replace",
                        "id": section.id,
                        "text": section.text,
                        "memory_ids": section.memory_ids,
                    }
                )
            if before.title != section.title:
                ops.append({"op": "rename", "id": section.id, "title": section.title})
        previous = section.id
    kept_old = [s.id for s in old if s.id in new_ids]
    kept_new = [s.id for s in new if s.id in old_by_id]
    if kept_old != kept_new:
        previous = None
        for section in new:
            if section.id in old_by_id:
                ops.append({"op": "move", "id": section.id, "after": previous})
            previous = section.id
    return ops


def apply_with_ids(
    sections: Sequence[Section], operations: Sequence[dict[str, Any]]
) -> list[Section]:
    """Apply :func:`operations_between` output, giving added sections their planned ids."""
    page = list(sections)
    for op in operations:
        if op["op"] == "add":
            new = Section(
                id=op["id"], title=op["title"], text=op["text"], memory_ids=list(op["memory_ids"])
            )
            position = _after(page, op)
            page = [*page[:position], new, *page[position:]]
        else:
            page, _ = _apply(page, op, set(op.get("memory_ids") or ()))
    return page


def compare(old: Sequence[Section], new: Sequence[Section]) -> tuple[list[SectionChange], int]:
    """What changed from ``old`` to ``new``, by section id, and how many sections did not."""
    old_by_id = {s.id: s for s in old}
    new_ids = {s.id for s in new}
    old_order = [s.id for s in old if s.id in new_ids]
    new_order = [s.id for s in new if s.id in old_by_id]
    changes: list[SectionChange] = []
    unchanged = 0
    for section in new:
        before = old_by_id.get(section.id)
        if before is None:
            changes.append(SectionChange(id=section.id, title=section.title, change="added"))
            continue
        kinds = []
        if before.title != section.title:
            kinds.append("renamed")
        if before.text != section.text:
            kinds.append("edited")
        if _moved(section.id, old_order, new_order):
            kinds.append("moved")
        if kinds:
            changes.append(
                SectionChange(
                    id=section.id,
                    title=section.title,
                    change="+".join(kinds),
                    previous_title=before.title if before.title != section.title else None,
                )
            )
        else:
            unchanged += 1
    changes.extend(
        SectionChange(id=s.id, title=s.title, change="removed") for s in old if s.id not in new_ids
    )
    return changes, unchanged


def _moved(section_id: str, old_order: Sequence[str], new_order: Sequence[str]) -> bool:
    """True when the section's predecessor among the kept sections changed."""
    i, j = old_order.index(section_id), new_order.index(section_id)
    before_old = old_order[i - 1] if i else None
    before_new = new_order[j - 1] if j else None
    return before_old != before_new
