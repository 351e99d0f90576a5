"""Curator repairs planned as pure functions: merge checks, split plans, name listings, reverts.

The entity service (app/curate/entities.py) reads what a repair needs from the graph, asks the
functions here what to change, and writes it. Nothing here does I/O or reads a clock.

Name claims are ``KNOWN_AS`` edges. A merge moves the absorbed entity's claims to the survivor
as separate edges tagged with the merge; so one entity may hold several claims on one name,
which the API shows as one name (``names_of``). A split gives the new entity the claims of the
facts it takes: a claim made only by those facts moves (tagged, like a merge, so that a revert
moves it back); a claim that other facts share is *trimmed* on the source (those facts' ids
taken out, the before-state kept in the split record) and copied, restricted to the split's
facts, onto the new entity.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime

import msgspec

from app.domain.names import EntityName, name_key, name_tokens
from app.store.search_keys import bank_key, escape_lucene

# Memory ids listed per name in entity details (the count is always complete).
MAX_NAME_MEMORY_IDS = 50

ClaimIdentity = tuple[str, str, str, tuple[str, ...], tuple[str, ...]]


class StoredClaim(msgspec.Struct, frozen=True, kw_only=True):
    """One ``KNOWN_AS`` edge as stored: its reference (valid inside one transaction) and props."""

    ref: str
    key: str
    text: str
    source: str | None = None
    stated: bool = False
    surfaces: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()
    first_memory_id: str | None = None
    at: datetime | None = None
    merge_id: str | None = None
    moved_from: str | None = None
    merge_stack: tuple[str, ...] = ()
    moved_stack: tuple[str, ...] = ()

    @property
    def identity(self) -> ClaimIdentity:
        """What tells one claim of an entity from another across transactions (refs do not)."""
        return (
            self.key,
            self.merge_id or "",
            self.moved_from or "",
            self.merge_stack,
            self.moved_stack,
        )


def names_of(claims: Iterable[StoredClaim], canonical_key: str) -> list[EntityName]:
    """The names of an entity, one per key: the canonical one first, then oldest first."""
    by_key: dict[str, list[StoredClaim]] = {}
    for claim in sorted(claims, key=_claim_order):
        by_key.setdefault(claim.key, []).append(claim)
    names = []
    for key, group in by_key.items():
        memory_ids = list(dict.fromkeys(m for c in group for m in c.memory_ids))
        times = [c.at for c in group if c.at is not None]
        names.append(
            EntityName(
                name=group[0].text,
                key=key,
                source=group[0].source,
                stated=any(c.stated for c in group),
                surfaces=list(dict.fromkeys(s for c in group for s in c.surfaces)),
                memory_ids=memory_ids[:MAX_NAME_MEMORY_IDS],
                memory_count=len(memory_ids),
                first_seen_at=min(times) if times else None,
            )
        )
    return sorted(
        names,
        key=lambda n: (
            n.key != canonical_key,
            n.first_seen_at is None,
            n.first_seen_at or datetime.min,
            n.key,
        ),
    )


def _claim_order(claim: StoredClaim) -> tuple[bool, datetime, str]:
    # Oldest claim first (its source describes the name); claims without a time last.
    return (claim.at is None, claim.at or datetime.min, claim.ref)


# -- merge -------------------------------------------------------------------------------------


class EntityBrief(msgspec.Struct, frozen=True, kw_only=True):
    """What a merge or a review decision checks of each side."""

    id: str
    canonical_name: str
    type: str | None = None
    is_label: bool = False
    mention_count: int = 0


def merge_refusal(gone: EntityBrief, keep: EntityBrief) -> str | None:
    """Why ``gone`` may not be folded into ``keep`` (None: it may).

    A controlled-vocabulary value (bank ``entity_labels``) only ever matches its own value: a
    label never absorbs nor joins anything but a label of the same vocabulary, or the exact-match
    promise of vocabularies would break silently.
    """
    if gone.id == keep.id:
        return "an entity cannot be merged into itself"
    if gone.is_label or keep.is_label:
        same_vocabulary = (
            gone.is_label
            and keep.is_label
            and (gone.type or "").casefold() == (keep.type or "").casefold()
        )
        if not same_vocabulary:
            label = keep if keep.is_label else gone
            return (
                f"{label.canonical_name!r} is a value of the controlled vocabulary "
                f"{label.type!r}: it merges only with values of the same vocabulary"
            )
    return None


def keep_and_gone(a: EntityBrief, b: EntityBrief) -> tuple[EntityBrief, EntityBrief]:
    """Which side survives a review's "same": more mentions, ties to the smaller id.

    The same rule as re-evaluation's merges (app/resolve/batch.py), so that a reviewer's merge
    and the resolver's would keep the same id.
    """
    keep, gone = sorted((a, b), key=lambda e: (-e.mention_count, e.id))
    return keep, gone


# -- split -------------------------------------------------------------------------------------


class MentionUse(msgspec.Struct, frozen=True):
    """A fact of a split naming the entity by one surface text, at the fact's mention time."""

    memory_id: str
    surface: str
    at: datetime | None = None


class NewClaim(msgspec.Struct, frozen=True, kw_only=True):
    """A name claim to create on the new entity of a split."""

    key: str
    text: str
    source: str
    stated: bool
    surfaces: tuple[str, ...]
    memory_ids: tuple[str, ...]
    first_memory_id: str | None
    at: datetime | None


class ClaimTrim(msgspec.Struct, frozen=True, kw_only=True):
    """A source claim that loses the split's facts; ``before_*`` let a revert restore it."""

    ref: str
    memory_ids: tuple[str, ...]
    first_memory_id: str | None
    identity: ClaimIdentity
    before_memory_ids: tuple[str, ...]
    before_first_memory_id: str | None


class SplitPlan(msgspec.Struct, frozen=True, kw_only=True):
    """What a split writes for names: the new entity's canonical name and claims."""

    canonical: str
    canonical_key: str
    # Source claims made only by the split's facts: they move to the new entity (tagged).
    move: tuple[str, ...]
    trims: tuple[ClaimTrim, ...]
    new_claims: tuple[NewClaim, ...]


def most_used_surface(uses: Sequence[MentionUse]) -> str:
    """The surface text most facts used; ties go to the longer, then the first in order."""
    counts = Counter(dict.fromkeys(((u.memory_id, u.surface) for u in uses), 1))
    per_surface: Counter[str] = Counter()
    for (_, surface), n in counts.items():
        per_surface[surface] += n
    if not per_surface:
        raise ValueError("no surface to choose from")
    return min(per_surface, key=lambda s: (-per_surface[s], -len(s), s))


def _facts_moving(
    claim: StoredClaim,
    split: Collection[str],
    partial: Collection[str],
    keys_moving: Mapping[str, Collection[str]],
) -> list[str]:
    """The split's facts among those that made ``claim`` (of a partial fact: if its key moves)."""
    return [
        m
        for m in claim.memory_ids
        if m in split and (m not in partial or claim.key in keys_moving.get(m, ()))
    ]


def plan_split(
    claims: Sequence[StoredClaim],
    uses: Sequence[MentionUse],
    *,
    source_key: str,
    name: str | None,
    now: datetime,
    partial: Collection[str] = (),
) -> SplitPlan:
    """Plan the names of a split: which claims move, which are trimmed, which are new.

    ``claims`` are the source entity's claims, ``uses`` the surface texts the split's facts used
    for it (every split fact appears at least once), ``source_key`` the source's canonical key
    (its claim stays, however trimmed), ``name`` the curator's canonical name for the new entity.
    ``partial``: facts of which only the mentions in ``uses`` move (a settle parted two names
    of one fact); of such a fact, only claims to the names those mentions use go with them.
    """
    split = {u.memory_id for u in uses}
    at_of: dict[str, datetime] = {}
    for use in uses:
        if use.at is not None:
            at_of[use.memory_id] = min(at_of.get(use.memory_id, use.at), use.at)
    surfaces_by_key: dict[str, list[str]] = {}
    keys_moving: dict[str, set[str]] = defaultdict(set)
    for use in uses:
        key = name_key(use.surface)
        keys_moving[use.memory_id].add(key)
        if key and use.surface not in surfaces_by_key.setdefault(key, []):
            surfaces_by_key[key].append(use.surface)

    move: list[str] = []
    trims: list[ClaimTrim] = []
    copies: dict[str, list[NewClaim]] = {}
    moved_keys: set[str] = set()
    for claim in claims:
        ids = _facts_moving(claim, split, partial, keys_moving)
        if not ids:
            continue
        if len(ids) == len(claim.memory_ids) and claim.key != source_key:
            move.append(claim.ref)
            moved_keys.add(claim.key)
            continue
        kept = tuple(m for m in claim.memory_ids if m not in split)
        first = claim.first_memory_id
        trims.append(
            ClaimTrim(
                ref=claim.ref,
                memory_ids=kept,
                first_memory_id=first if first in kept else (kept[0] if kept else None),
                identity=claim.identity,
                before_memory_ids=claim.memory_ids,
                before_first_memory_id=first,
            )
        )
        times = [at_of[m] for m in ids if m in at_of]
        copies.setdefault(claim.key, []).append(
            NewClaim(
                key=claim.key,
                text=claim.text,
                source=claim.source or "mention",
                stated=claim.stated,
                surfaces=tuple(surfaces_by_key.get(claim.key, ()) or claim.surfaces),
                memory_ids=tuple(ids),
                first_memory_id=ids[0],
                at=min(times) if times else claim.at,
            )
        )
    new_claims = [_join(group) for group in copies.values()]
    # A surface with no claim behind it (older data): still a name the new entity was called.
    for key, surfaces in surfaces_by_key.items():
        if key in copies or key in moved_keys:
            continue
        ids = list(dict.fromkeys(u.memory_id for u in uses if name_key(u.surface) == key))
        times = [at_of[m] for m in ids if m in at_of]
        new_claims.append(
            NewClaim(
                key=key,
                text=surfaces[0],
                source="mention",
                stated=False,
                surfaces=tuple(surfaces),
                memory_ids=tuple(ids),
                first_memory_id=ids[0],
                at=min(times) if times else None,
            )
        )
    canonical = name.strip() if name and name.strip() else most_used_surface(uses)
    canonical_key = name_key(canonical)
    if not canonical_key:
        raise ValueError(f"name {canonical!r} has no letters or digits to identify it")
    if name and canonical_key not in {c.key for c in new_claims} | moved_keys:
        # The curator named it: a stated name (it skips the word guard, like an alias).
        new_claims.append(
            NewClaim(
                key=canonical_key,
                text=canonical,
                source="curator",
                stated=True,
                surfaces=(canonical,),
                memory_ids=(),
                first_memory_id=None,
                at=now,
            )
        )
    return SplitPlan(
        canonical=canonical,
        canonical_key=canonical_key,
        move=tuple(move),
        trims=tuple(trims),
        new_claims=tuple(sorted(new_claims, key=lambda c: c.key)),
    )


def _join(group: Sequence[NewClaim]) -> NewClaim:
    """Several source claims on one name (a merge left them apart) become one new claim."""
    first = group[0]
    times = [c.at for c in group if c.at is not None]
    ids = tuple(dict.fromkeys(m for c in group for m in c.memory_ids))
    return NewClaim(
        key=first.key,
        text=first.text,
        source=first.source,
        stated=any(c.stated for c in group),
        surfaces=tuple(dict.fromkeys(s for c in group for s in c.surfaces)),
        memory_ids=ids,
        first_memory_id=ids[0] if ids else None,
        at=min(times) if times else None,
    )


class TrimRecord(msgspec.Struct, frozen=True, kw_only=True):
    """What a split record keeps of one trimmed claim, to restore it on revert."""

    identity: ClaimIdentity
    memory_ids: tuple[str, ...]
    first_memory_id: str | None


class ClaimUpdate(msgspec.Struct, frozen=True, kw_only=True):
    """New memory ids (and first memory id) for one stored claim."""

    ref: str
    memory_ids: tuple[str, ...]
    first_memory_id: str | None


def trim_records(plan: SplitPlan) -> list[TrimRecord]:
    """The before-state of the trimmed claims, as the split record stores it."""
    return [
        TrimRecord(
            identity=t.identity,
            memory_ids=t.before_memory_ids,
            first_memory_id=t.before_first_memory_id,
        )
        for t in plan.trims
    ]


def restore_trims(
    current: Sequence[StoredClaim], trims: Sequence[TrimRecord], gone: Iterable[str] = ()
) -> list[ClaimUpdate]:
    """Give trimmed claims their facts back (a split revert).

    The order is the one before the split, followed by facts that made the claim since; ids in
    ``gone`` (split facts deleted since) are not brought back. A claim that no longer exists
    (its facts were all deleted) stays gone.
    """
    dropped = set(gone)
    by_identity = {c.identity: c for c in current}
    updates = []
    for trim in trims:
        claim = by_identity.get(_identity(trim.identity))
        if claim is None:
            continue
        before = [m for m in trim.memory_ids if m not in dropped]
        ids = tuple(dict.fromkeys([*before, *claim.memory_ids]))
        first = trim.first_memory_id if trim.first_memory_id in ids else claim.first_memory_id
        updates.append(ClaimUpdate(ref=claim.ref, memory_ids=ids, first_memory_id=first))
    return updates


def _identity(value: Sequence[object]) -> ClaimIdentity:
    """An identity read back from JSON (lists) as the hashable tuple ``StoredClaim`` gives."""
    key, merge_id, moved_from, merge_stack, moved_stack = value
    return (
        str(key),
        str(merge_id),
        str(moved_from),
        tuple(str(x) for x in merge_stack),  # type: ignore[attr-defined]
        tuple(str(x) for x in moved_stack),  # type: ignore[attr-defined]
    )


# -- listing -------------------------------------------------------------------------------------


def name_filter(bank_id: str, text: str) -> tuple[str, str | None]:
    """How the entity listing finds ``text`` among names: its exact key, and a Lucene query.

    The query asks the ``entity_lookup`` full-text index (scoped by the bank's token) for
    entities having every word of ``text`` among the folded words of their names, the last word
    also as a prefix (someone typing "Sar" finds Sarah). None when the text has no words.
    """
    key = name_key(text)
    words = [w for w in name_tokens(key) if w] if key else []
    if not words:
        return key, None
    clauses = [f"search_text:{escape_lucene(w)}" for w in words[:-1]]
    last = escape_lucene(words[-1])
    clauses.append(f"search_text:({last} OR {last}*)")
    return key, f"bank_key:{bank_key(bank_id)} AND " + " AND ".join(clauses)
