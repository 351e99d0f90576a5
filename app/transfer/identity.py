"""Pure planning for an import: the memories it pairs up, and the repairs it makes.

Which new memory is which exported one, and which splits and merges make the new identities
equal to the exported ones.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from app.curate.schemas.memories import Memory, MemoryUpdate
from app.domain.names import name_key
from app.retain.schemas import EntityHint
from app.transfer.format import ExportEntity, ExportMemory


def match_memories(
    exported: Sequence[ExportMemory], current: Sequence[Memory]
) -> tuple[list[tuple[ExportMemory, Memory]], list[ExportMemory]]:
    """Pair exported memories with new ones by (document id, extracted text), in order.

    Both sequences are oldest first; facts with the same document and text pair up in that
    order. Returns the pairs and the exported memories left without a partner.
    """
    pool: dict[tuple[str | None, str], list[Memory]] = defaultdict(list)
    for m in current:
        pool[(m.document_id, m.text)].append(m)
    taken: dict[tuple[str | None, str], int] = Counter()
    pairs: list[tuple[ExportMemory, Memory]] = []
    unmatched: list[ExportMemory] = []
    for old in exported:
        key = (old.document_id, old.match_text)
        candidates = pool.get(key, [])
        if old.document_id is not None and taken[key] < len(candidates):
            pairs.append((old, candidates[taken[key]]))
            taken[key] += 1
        else:
            unmatched.append(old)
    return pairs, unmatched


def mention_key(name: str, mention: str | None) -> str:
    """How a fact's mention is recognised across banks: the surface text's name key."""
    return name_key(mention or name) or (mention or name)


def memory_fix(
    old: ExportMemory, new: Memory, entities: dict[str, ExportEntity]
) -> MemoryUpdate | None:
    """The PATCH that makes ``new`` equal to ``old`` (None when they already agree)."""
    changes: dict[str, Any] = {}
    if new.text != old.text:
        changes["text"] = old.text
    if new.context != old.context:
        changes["context"] = old.context
    for field in ("occurred_start", "occurred_end"):
        value = getattr(old, field)
        if value is not None and getattr(new, field) != value:
            changes[field] = value
    if new.type != old.type and old.type in ("world", "experience"):
        changes["fact_type"] = old.type
    wanted = Counter(mention_key(e.name, e.mention) for e in old.entities)
    have = Counter(mention_key(e.name, e.mention) for e in new.mentions)
    if wanted != have or "text" in changes:
        changes["entities"] = [
            EntityHint(
                text=e.mention or e.name,
                type=(entities[e.entity_id].type if e.entity_id in entities else e.type) or None,
            )
            for e in old.entities
        ]
    if not changes:
        return None
    return MemoryUpdate(**changes, reason="mnemo import: as in the exported bank")


class Split(msgspec.Struct, frozen=True):
    """Move the mentions of ``memory_ids`` off ``entity_id`` into a new entity ``name``."""

    entity_id: str
    memory_ids: list[str]
    name: str | None


class Merge(msgspec.Struct, frozen=True):
    """Fold ``gone`` into ``keep``."""

    gone: str
    keep: str


class IdentityPlan(msgspec.Struct, frozen=True):
    """Repairs that bring the new bank's partition of mentions to the exported one.

    ``new_of`` maps each exported entity to the new entity holding most of its mentions.
    """

    splits: list[Split]
    merges: list[Merge]
    new_of: dict[str, str]


def plan_identities(
    pairs: Sequence[tuple[ExportMemory, Memory]], names: dict[str, str]
) -> IdentityPlan:
    """Compare who-is-who in matched memories: the splits and merges that make it equal.

    A mention is matched within a pair of memories by :func:`mention_key`. ``names`` gives each
    exported entity's canonical name: the new entity called so is the one kept or left in place.
    Apply the splits first; merges are meant for a bank that needs no split.
    """
    # new entity -> exported entity -> new memory ids; and the new entities' canonical names.
    holds: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    new_names: dict[str, str] = {}
    for old, new in pairs:
        by_key = {mention_key(e.name, e.mention): e for e in new.mentions}
        for mention in old.entities:
            found = by_key.get(mention_key(mention.name, mention.mention))
            if found is not None:
                holds[found.id][mention.entity_id].add(new.id)
                new_names[found.id] = found.name
    splits = [
        split
        for new_id in sorted(holds)
        for split in _splits(new_id, holds[new_id], names, new_names[new_id])
    ]
    # exported entity -> new entity -> new memory ids
    spread: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for new_id, groups in holds.items():
        for old_id, memory_ids in groups.items():
            spread[old_id][new_id] = memory_ids
    merges: list[Merge] = []
    new_of: dict[str, str] = {}
    for old_id in sorted(spread):
        homes = spread[old_id]
        keep = _choose(homes, new_names.__getitem__, names.get(old_id, ""))
        new_of[old_id] = keep
        merges.extend(
            Merge(gone=new_id, keep=keep)
            for new_id in sorted(homes)
            if new_id != keep and len(holds[new_id]) == 1
        )
    return IdentityPlan(splits=splits, merges=merges, new_of=new_of)


def _splits(
    new_id: str, groups: dict[str, set[str]], names: dict[str, str], new_name: str
) -> list[Split]:
    """Splits that leave ``new_id`` with the mentions of one exported entity."""
    if len(groups) < 2:
        return []
    stay = _choose(groups, lambda old_id: names.get(old_id, ""), new_name)
    splits = []
    for old_id in sorted(groups):
        moved = sorted(groups[old_id] - groups[stay])
        if old_id != stay and moved:
            splits.append(Split(new_id, moved, names.get(old_id) or None))
    return splits


def _choose(groups: dict[str, set[str]], name_of: Callable[[str], str], name: str) -> str:
    """The group named ``name`` (by name key), else the largest; ties to the smallest id."""
    key = name_key(name)
    return min(groups, key=lambda g: (name_key(name_of(g)) != key, -len(groups[g]), g))
