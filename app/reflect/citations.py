"""Which memory ids an answer cites, and which of them it may keep.

A citation is an id in square brackets, ``[id]``, in the answer text, or an id the model listed
when it finished. The code keeps a citation only when a tool returned that memory in this same
reflect (so the model saw it, in this bank): an id the model remembered, invented or copied from
elsewhere is dropped, taken out of the text, and reported with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from app.reflect.schemas import DroppedCitation

_BRACKETED = re.compile(r"\[(?:memory:\s*)?([A-Za-z0-9][A-Za-z0-9_.:-]{0,63})\]")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
NOT_RETURNED = "not returned by a tool in this reflect"
NOT_IN_BANK = "not a valid memory of this bank"


def cited_ids(text: str, known: Collection[str] = ()) -> list[str]:
    """Ids cited as ``[id]`` in ``text``: those in ``known`` and anything shaped like a UUID.

    Other bracketed words (``[sic]``, ``[1]``) are text, not citations.
    """
    found = (m.group(1) for m in _BRACKETED.finditer(text))
    return list(dict.fromkeys(i for i in found if i in known or _UUID.match(i)))


def keep_citations(
    cited: Iterable[str], returned: Collection[str]
) -> tuple[list[str], list[DroppedCitation]]:
    """Split citations into those a tool returned in this call and those dropped."""
    kept: list[str] = []
    dropped: list[DroppedCitation] = []
    for memory_id in dict.fromkeys(cited):
        if memory_id in returned:
            kept.append(memory_id)
        else:
            dropped.append(DroppedCitation(id=memory_id, reason=NOT_RETURNED))
    return kept, dropped


def remove_citations(text: str, ids: Sequence[str]) -> str:
    """``text`` without the ``[id]`` markers of ``ids`` (and the space before each)."""
    if not ids:
        return text
    drop = set(ids)

    def replace(match: re.Match[str]) -> str:
        return "" if match.group(1) in drop else match.group(0)

    return re.sub(r" ?" + _BRACKETED.pattern, replace, text)
