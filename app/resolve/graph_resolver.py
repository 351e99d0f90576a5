"""Entity resolution against the graph: load candidates from indexes, decide, persist.

Inside the retain transaction (after the bank lock, so concurrent retains resolve one after
another), for one batch of facts:

1. load: the index candidates of every name of the batch (exact name key, then the full-text
   lookup index), then the candidates of those entities' own names (re-evaluation looks them
   up), into a ``WorkingSet``, each with its neighbours below the hub degree (decision 0076);
2. decide: ``batch.resolve_one`` per fact, in order, over the working set (pure); again, with
   the edges its loads left out, if it merged two entities that were named side by side;
3. persist what the working set recorded: new entities, name claims with provenance, merges
   that re-evaluation decided (audited, reversible), reviews, lookup fields.
"""

from __future__ import annotations

import math
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from datetime import datetime
from typing import Any

import msgspec

from app.domain.banks import BankConfig
from app.domain.names import fold, index_keys, name_key
from app.resolve.batch import FactInput, could_merge, names_to_load, resolve_one
from app.resolve.entity_types import may_change_type, settled_type
from app.resolve.memory_bank import (
    BLOCK_HOPS,
    COMPANY_HOPS,
    MAX_BLOCK_ENTITIES,
    anchored_by,
    is_anchor,
    is_hub,
    take_within,
)
from app.resolve.model import Mention
from app.resolve.port import FactToResolve, PendingSettle, ResolvedMention, WriteGate
from app.resolve.review_rows import review_rows
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy, hub_degree
from app.resolve.settle_store import (
    BlockReplay,
    CachedEmbed,
    Embed,
    SettleOutcome,
    StoredVectors,
    annotate_mentions,
    apply_replay,
    as_given,
    replay_block,
)
from app.resolve.working_set import NeighbourInfo, WorkingEntity, WorkingSet
from app.store.graph import Tx, cypher_datetime
from app.store.search_keys import bank_key, escape_lucene

# Full-text hits kept per name probed (besides exact key matches).
LOOKUP_LIMIT = 20
# … and per name of an entity being re-evaluated (re-evaluation weighs at most
# ``ResolutionPolicy.max_candidates`` others per name; fetching more only costs load time).
REEVALUATION_LOOKUP_LIMIT = 10
# Neighbours loaded per candidate (most frequent first): the rest only count in its degree.
MAX_NEIGHBOURS = 200
# The bank's entity count (for the hub rule: a hub co-occurs with 40% of the bank) is counted
# up to this: beyond it the hub degree (4,000) is out of any non-hub's reach anyway, and a full
# count would make every retain cost grow with the bank.
BANK_ENTITIES_CAP = 10_000
# Fuzzy (edit distance 1) terms only for words this long: shorter ones match too much.
FUZZY_MIN_LENGTH = 4


class _NameRow(msgspec.Struct):
    key: str
    stated: bool = False


class _NeighbourInfoRow(msgspec.Struct):
    id: str
    degree: int
    series: str = ""


class _EntityRow(msgspec.Struct):
    id: str
    canonical_name: str
    type: str | None
    first_seen: datetime
    last_seen: datetime
    mention_count: int
    is_label: bool
    degree: int
    names: list[_NameRow]
    neighbour_ids: list[str]
    neighbour_counts: list[int]
    decided_apart: list[str]


class _LoadedRow(msgspec.Struct):
    entities: list[_EntityRow]
    neighbours: list[_NeighbourInfoRow]


class _NamesOfRow(msgspec.Struct):
    id: str
    type: str | None
    canonical_name: str
    keys: list[str]
    is_label: bool = False


class _LookupHit(_NamesOfRow, kw_only=True):
    # Indexes into the names looked up: the probes whose lookup returned this entity. Required:
    # a hit read without it would be weighed against no name and silently never load.
    found_by: list[int]


class LookupFields(msgspec.Struct, frozen=True):
    """What the full-text ``entity_lookup`` index holds for one entity."""

    search_text: str
    lookup_keys: str
    series: str


def lookup_fields(keys: Iterable[str], entity_type: str | None, canonical: str) -> LookupFields:
    """Folded word tokens and opaque lookup-key tokens of all an entity's names."""
    tokens: dict[str, None] = {}
    lookups: dict[str, None] = {}
    for key in keys:
        indexed = index_keys(key, entity_type)
        tokens.update(dict.fromkeys(indexed.text.split()))
        lookups.update(dict.fromkeys(_lookup_token(k) for k in indexed.lookup))
    series = index_keys(name_key(canonical), entity_type).series
    return LookupFields(" ".join(tokens), " ".join(lookups), series)


def lookup_query(bank_id: str, key: str, entity_type: str | None) -> str | None:
    """The Lucene query for one name: its words (and fuzzy variants) or its lookup keys."""
    indexed = index_keys(key, entity_type)
    words = [w for w in indexed.text.split() if w]
    if not words and not indexed.lookup:
        return None
    terms = [escape_lucene(w) for w in words]
    terms += [f"{escape_lucene(w)}~1" for w in words if len(w) >= FUZZY_MIN_LENGTH]
    clauses = []
    if terms:
        clauses.append(f"search_text:({' '.join(terms)})")
    if indexed.lookup:
        clauses.append(f"lookup_keys:({' '.join(_lookup_token(k) for k in indexed.lookup)})")
    return f"bank_key:{bank_key(bank_id)} AND ({' OR '.join(clauses)})"


def _lookup_token(key: str) -> str:
    # One opaque token per lookup key, whatever its characters (see app/store/search_keys.py).
    return f"lk{fold(key).encode().hex()}0"


class GraphResolver:
    """The EntityResolver the retain pipeline uses."""

    def __init__(
        self,
        policy: ResolutionPolicy = DEFAULT_POLICY,
        *,
        embed: Embed | None = None,
        stored_vectors: StoredVectors | None = None,
    ) -> None:
        self._policy = policy
        # The store's embedding model and its facts' vectors: a settle tells namesakes apart by
        # what their facts are about.
        self._embed = CachedEmbed(embed) if embed is not None else None
        self._stored_vectors = stored_vectors

    async def resolve(
        self, tx: Tx, bank: BankConfig, facts: Sequence[FactToResolve]
    ) -> list[list[ResolvedMention]]:
        """Resolve every fact's mentions in order; persist entities, names, merges, reviews."""
        labels = {label.name.casefold() for label in bank.entity_labels}
        inputs = [_fact_input(f, labels) for f in facts]
        count = await tx.run(
            "resolve/bank_entities", {"bank_id": bank.id, "cap": BANK_ENTITIES_CAP}
        )
        bank_entities = int(count[0]["n"])
        names = names_to_load(inputs)
        # A neighbour at or above the hub degree this batch can reach (were each of its names
        # a new entity) is a hub throughout it: it weighs nothing as company
        # (``scoring.neighbour_weight``) and is not loaded. A dense bank's entities have
        # hundreds of such neighbours; reading them was most of a first pass's load. A
        # settle (``_block``) still loads every neighbour: its block takes them as company.
        hub = hub_degree(bank_entities + len(names), self._policy)
        below = None if math.isinf(hub) else hub
        ws = WorkingSet(self._policy, bank_entities=bank_entities)
        loaded = await self._load_for(tx, bank.id, names, ws, below=below)
        # Re-evaluation looks candidates up by every name of the entities the batch touches
        # (a bare "Ivanova" finds every Ivanova). Most of those are among the entities just
        # loaded, so what their other names find is loaded now, before the run.
        stored_names = _names_of(ws)
        early = await self._reevaluation_targets(tx, bank.id, names, stored_names, set(ws.entities))
        await self._load_entities(tx, bank.id, early, ws, below=below)
        loaded |= early
        stored_names = _names_of(ws)
        assigned = [resolve_one(ws, fact) for fact in inputs]
        # Entities loaded just now were not looked up by their own names (loading the targets
        # of every possible one, ten namesakes for each, would grow with the bank): if the run
        # touched one and its names find entities still not loaded, the batch runs again,
        # from scratch, with them. The others' targets are all loaded already (looked up
        # above against more names), so the run above saw everything it needed and stands.
        moved = {eid for m in ws.merges for eid in (m.keep, m.gone)}
        subjects = ws.touched | moved
        extra = (
            await self._reevaluation_targets(tx, bank.id, names, stored_names, subjects)
            if subjects & early
            else set()
        )
        # Two entities named side by side in one fact are never merged (``reconsider``), but
        # an edge between two hubs was listed by neither's load: if the run merged stored
        # entities that share one, it runs again with those edges listed.
        edges: dict[tuple[str, str], int] = {}
        stored = loaded | extra
        rerun = bool(extra)
        while True:
            if rerun:
                ws = WorkingSet(self._policy, bank_entities=bank_entities)
                await self._load_entities(tx, bank.id, stored, ws, below=below)
                for (a, b), together in sorted(edges.items()):
                    ws.list_stored_edge(a, b, together)
                assigned = [resolve_one(ws, fact) for fact in inputs]
            hidden = await self._merged_apart(tx, bank.id, ws, stored, edges)
            if not hidden:
                break
            edges |= hidden
            rerun = True
        await self._persist(tx, bank.id, ws)
        out: list[list[ResolvedMention]] = []
        for fact, ids in zip(facts, assigned, strict=True):
            resolved = []
            for mention, eid in zip(fact.mentions, ids, strict=True):
                if not eid:
                    continue
                entity = ws.entities[ws.final(eid)]
                resolved.append(
                    ResolvedMention(
                        entity_id=entity.id,
                        canonical_name=entity.canonical,
                        mention=mention.text,
                        type=entity.type or "",
                        mention_type=mention.type,
                    )
                )
            out.append(resolved)
        return out

    async def record_mentions(
        self,
        tx: Tx,
        bank_id: str,
        facts: Sequence[FactToResolve],
        resolved: Sequence[Sequence[ResolvedMention]],
    ) -> PendingSettle:
        """Annotate the batch's MENTIONS edges and mark its facts for their settle.

        Call after the batch's facts and mentions are written, in the same transaction.
        """
        await annotate_mentions(tx, bank_id, facts, resolved)
        touched = frozenset(r.entity_id for entities in resolved for r in entities)
        return PendingSettle(
            names=frozenset(names_to_load([_fact_input(f, set()) for f in facts])),
            touched=touched,
            retype=frozenset(_dissenting(facts, resolved)),
            memory_ids=frozenset(f.memory_id for f in facts) if touched else frozenset(),
        )

    async def settle(
        self, tx: Tx, bank_id: str, pending: PendingSettle, *, writing: WriteGate = nullcontext
    ) -> SettleOutcome:
        """Re-resolve the block ``pending`` touched and apply the difference (``settle_store``).

        Runs in a write transaction of its own, after the writes it covers; unmarks their facts.
        Everything is read and decided before ``writing`` is entered, so that the settle takes
        no write lock while it replays.
        """
        replayed = BlockReplay(None, (), 0, 0)
        if pending.touched:
            count = await tx.run(
                "resolve/bank_entities", {"bank_id": bank_id, "cap": BANK_ENTITIES_CAP}
            )
            ws = WorkingSet(self._policy, bank_entities=int(count[0]["n"]))
            # Entities written since may have been merged away or deleted: the block starts
            # from those still there (the walk loads nothing for a missing id).
            block, anchors = await self._block(
                tx, bank_id, sorted(pending.names, key=str), set(pending.touched), ws
            )
            if block <= anchors:
                # Nothing in the block may move (the usual case once a bank knows its people):
                # no replay, and the anchors' neighbours need not be read.
                replayed = BlockReplay(None, (), len(block), 0)
            else:
                await self._load_entities(tx, bank_id, anchors, ws)
                replayed = await replay_block(
                    tx,
                    bank_id,
                    block,
                    [ws.entities[i] for i in sorted(block) if i in ws.entities],
                    ws.neighbour_info,
                    bank_entities=ws.bank_entities,
                    policy=self._policy,
                    embed=self._embed,
                    stored_vectors=self._stored_vectors,
                    touched=pending.touched,
                )
        async with writing():
            if pending.memory_ids:
                await tx.run(
                    "resolve/settled",
                    {"bank_id": bank_id, "memory_ids": sorted(pending.memory_ids)},
                )
            outcome = await apply_replay(tx, bank_id, replayed)
            # Each entity whose mentions the settle moved, or to which a write gave a mention
            # of another type than its own, carries the type its mentions now say by majority,
            # not the one it was created with; the rest of the block has the type it had.
            await retype_entities(tx, bank_id, set(pending.retype) | set(outcome.changed))
        return outcome

    async def _block(
        self,
        tx: Tx,
        bank_id: str,
        names: Sequence[tuple[str, str | None]],
        touched: set[str],
        ws: WorkingSet,
    ) -> tuple[set[str], set[str]]:
        """The batch's entities and, transitively, what they could be or be told apart by.

        As ``memory_bank.block_of``: each round loads what the last one found and adds the
        entities their names could resolve to and (``COMPANY_HOPS`` rounds) their company,
        except through anchors; ``BLOCK_HOPS`` rounds and ``MAX_BLOCK_ENTITIES`` more at most.
        Returns the block and its anchors. An anchor is known by its counts (``anchored_by``)
        and is not loaded here: the block does not grow through it, and a large entity's
        neighbours are most of what a load reads. A hub is loaded (it may be settled) but its
        company is not taken (``is_hub``).
        """
        hub = hub_degree(ws.bank_entities, self._policy)
        found = set(touched)
        bound = len(found) + MAX_BLOCK_ENTITIES
        frontier = set(touched)
        probes = list(names)
        anchors: set[str] = set()
        for hop in range(BLOCK_HOPS):
            anchors |= await self._load_frontier(tx, bank_id, frontier, ws)
            if len(found) >= bound:
                # Full: nothing a lookup finds could join, and at scale a full block's last
                # frontier is the largest lookup of the walk.
                break
            company: Counter[str] = Counter()
            extra: set[tuple[str, str | None]] = set()
            for i in sorted(frontier - anchors):
                e = ws.entities.get(i)
                if e is None or is_anchor(e):
                    continue
                extra.update((k, e.type) for k in e.names)
                if hop < COMPANY_HOPS and not is_hub(e, hub):
                    company.update(e.neighbours)
            probes = sorted({*probes, *extra}, key=str)
            hits = await self._lookup(tx, bank_id, probes, limit=REEVALUATION_LOOKUP_LIMIT)
            named = self._mergeable((row for i, row in hits.items() if i not in found), probes)
            new = take_within(bound - len(found), found, named, company, ws.degree_of)
            if not new:
                break
            found |= new
            frontier, probes = new, []
        else:
            anchors |= await self._load_frontier(tx, bank_id, frontier, ws)
        return found, anchors

    async def _load_frontier(self, tx: Tx, bank_id: str, ids: set[str], ws: WorkingSet) -> set[str]:
        """Load the entities of ``ids`` that are not anchors (read from counts); the anchors."""
        if not ids:
            return set()
        rows = await tx.rows(
            "resolve/entity_counts", {"bank_id": bank_id, "ids": sorted(ids)}, _CountsRow
        )
        anchors = {r.id for r in rows if anchored_by(mentions=r.mentions, is_label=r.is_label)}
        await self._load_entities(tx, bank_id, ids - anchors, ws)
        return anchors

    # -- load ---------------------------------------------------------------------------------

    async def _load_for(
        self,
        tx: Tx,
        bank_id: str,
        names: Sequence[tuple[str, str | None]],
        ws: WorkingSet,
        *,
        below: float | None,
    ) -> set[str]:
        """Load the stored entities that ``names`` could resolve to; returns their ids."""
        hits = await self._lookup(tx, bank_id, names)
        found = self._mergeable(hits.values(), names)
        await self._load_entities(tx, bank_id, found, ws, below=below)
        return found

    async def _merged_apart(
        self,
        tx: Tx,
        bank_id: str,
        ws: WorkingSet,
        stored: set[str],
        known: dict[tuple[str, str], int],
    ) -> dict[tuple[str, str], int]:
        """The stored co-occurrences, not in ``known``, between stored entities a run made one.

        A run merges only entities it saw no edge between, so each one found here is an edge
        its loads left out (a hub, not listed as anyone's neighbour), keyed by its ids in order.
        """
        into: dict[str, list[str]] = {}
        for i in sorted({i for m in ws.merges for i in (m.keep, m.gone)} & stored):
            into.setdefault(ws.final(i), []).append(i)
        pairs = [
            {"a": a, "b": b}
            for one in into.values()
            for n, a in enumerate(one)
            for b in one[n + 1 :]
            if (a, b) not in known
        ]
        if not pairs:
            return {}
        rows = await tx.rows(
            "resolve/co_occurrence", {"bank_id": bank_id, "pairs": pairs}, _EdgeRow
        )
        return {(row.a, row.b): row.count for row in rows}

    async def _reevaluation_targets(
        self,
        tx: Tx,
        bank_id: str,
        names: Sequence[tuple[str, str | None]],
        stored_names: dict[str, tuple[str | None, list[str]]],
        subjects: set[str],
    ) -> set[str]:
        """Stored entities, not loaded yet, that the ``subjects`` could merge with.

        ``stored_names``: the type and names of each loaded entity as stored (before the run).
        """
        touched = sorted(subjects & stored_names.keys())
        known = {(key, stored_names[i][0]) for i in touched for key in stored_names[i][1]}
        reevaluated = sorted(known - set(names), key=str)
        hits = await self._lookup(tx, bank_id, reevaluated, limit=REEVALUATION_LOOKUP_LIMIT)
        return self._mergeable(
            (row for i, row in hits.items() if i not in stored_names), reevaluated
        )

    def _mergeable(
        self, hits: Iterable[_LookupHit], names: Sequence[tuple[str, str | None]]
    ) -> set[str]:
        """The index hits that a name which found them could resolve to (from names alone).

        Full-text hits include every entity sharing a word or a near spelling; most fail the
        type or name checks that any merge needs. The lookup returns its hits' names in the
        same round trip; loading an entity with its neighbours costs far more, so only those
        that pass are loaded. A hit is weighed against the names whose lookup returned it, as
        ``WorkingSet.lookup`` candidates are: against every name looked up, the screening
        would grow with the product of a large bank's hits and a block's names.
        """
        return {
            r.id
            for r in hits
            if could_merge(
                [*r.keys, name_key(r.canonical_name)],
                r.type,
                r.is_label,
                [names[i] for i in r.found_by],
                self._policy,
            )
        }

    async def _lookup(
        self,
        tx: Tx,
        bank_id: str,
        names: Sequence[tuple[str, str | None]],
        *,
        limit: int = LOOKUP_LIMIT,
    ) -> dict[str, _LookupHit]:
        """The index hits of ``names`` (``limit`` a name), each with its names as stored."""
        probes = [
            {"i": i, "key": key, "lucene": query}
            for i, (key, entity_type) in enumerate(names)
            if (query := lookup_query(bank_id, key, entity_type)) is not None
        ]
        if not probes:
            return {}
        rows = await tx.rows(
            "resolve/lookup",
            {"bank_id": bank_id, "probes": probes, "limit": limit},
            _LookupHit,
        )
        return {row.id: row for row in rows}

    async def _load_entities(
        self, tx: Tx, bank_id: str, ids: set[str], ws: WorkingSet, *, below: float | None = None
    ) -> None:
        """Load entities (and the degree and series of their neighbours) into ``ws``.

        ``below``: list only the neighbours of a lower degree (None: all of them).
        """
        if not ids:
            return
        loaded = await tx.rows(
            "resolve/load_entities",
            {
                "bank_id": bank_id,
                "ids": sorted(ids),
                "max_neighbours": MAX_NEIGHBOURS,
                "hub": below,
                "known": sorted(ws.neighbour_info),
            },
            _LoadedRow,
        )
        rows = loaded[0].entities if loaded else []
        neighbours = loaded[0].neighbours if loaded else []
        for n in sorted(neighbours, key=lambda n: n.id):
            ws.neighbour_info.setdefault(n.id, NeighbourInfo(n.degree, n.series))
        for row in rows:
            ws.load(
                WorkingEntity(
                    id=row.id,
                    canonical=row.canonical_name,
                    type=row.type or None,
                    first=row.first_seen,
                    last=row.last_seen,
                    names={n.key: n.stated for n in row.names},
                    mentions=row.mention_count,
                    neighbours=_counter(zip(row.neighbour_ids, row.neighbour_counts, strict=True)),
                    unloaded_degree=max(0, row.degree - len(row.neighbour_ids)),
                    is_label=row.is_label,
                    decided_apart=set(row.decided_apart),
                )
            )

    # -- persist ------------------------------------------------------------------------------

    async def _persist(self, tx: Tx, bank_id: str, ws: WorkingSet) -> None:
        key = bank_key(bank_id)
        created = [eid for eid in ws.created if eid in ws.entities]
        await tx.run(
            "resolve/create_entities",
            {
                "bank_id": bank_id,
                "bank_key": key,
                "entities": [_entity_row(ws.entities[eid]) for eid in created],
            },
        )
        recompute: set[str] = set()
        for merge in ws.merges:
            gone_stored = merge.gone not in ws.created
            if not gone_stored:
                continue  # created and folded within this batch: nothing stored to move
            keep = ws.final(merge.keep)
            await merge_entities(
                tx,
                bank_id,
                keep=keep,
                gone=merge.gone,
                reason="re-evaluation: " + ("evidence" if merge.evidence else "merged"),
                by="resolver",
                evidence_json=msgspec.json.encode(merge.evidence).decode(),
            )
            # Rebuilding the survivor rebuilds every co-occurrence edge it has; the absorbed
            # entity's edges went with the merge.
            recompute.add(keep)
        await tx.run(
            "resolve/add_names",
            {"bank_id": bank_id, "bank_key": key, "names": _claim_rows(ws)},
        )
        if recompute:
            survivors = sorted(ws.final(eid) for eid in recompute)
            await tx.run("resolve/recompute_entities", {"bank_id": bank_id, "ids": survivors})
            await tx.run(
                "resolve/rename_entities",
                {
                    "bank_id": bank_id,
                    "entities": [
                        {
                            "id": eid,
                            "canonical_name": ws.entities[eid].canonical,
                            "name_key": name_key(ws.entities[eid].canonical),
                        }
                        for eid in survivors
                    ],
                },
            )
        changed = {ws.final(c.entity_id) for c in ws.claims} - set(created)
        await refresh_lookup_fields(tx, bank_id, changed)
        reviews = review_rows(
            bank_id, ws.reviews, ws.final, lambda a, b: a in ws.entities and b in ws.entities
        )
        await tx.run("resolve/file_reviews", {"bank_id": bank_id, "reviews": reviews})


async def merge_entities(
    tx: Tx,
    bank_id: str,
    *,
    keep: str,
    gone: str,
    reason: str,
    by: str,
    evidence_json: str | None = None,
    review_id: str | None = None,
) -> str:
    """Fold ``gone`` into ``keep`` (audited); the caller recomputes derived edges after."""
    merge_id = str(uuid.uuid4())
    await tx.run(
        "resolve/merge_entities",
        {
            "bank_id": bank_id,
            "merge_id": merge_id,
            "keep": keep,
            "gone": gone,
            "reason": reason,
            "by": by,
            "evidence_json": evidence_json,
            "review_id": review_id,
        },
    )
    return merge_id


class _EdgeRow(msgspec.Struct):
    a: str
    b: str
    count: int


class _CountsRow(msgspec.Struct):
    id: str
    mentions: int
    is_label: bool


class _MentionTypeVote(msgspec.Struct):
    type: str
    guessed: bool = False
    # Mentions that gave this type.
    n: int = 1


class _MentionTypesRow(msgspec.Struct):
    id: str
    type: str | None
    is_label: bool
    votes: list[_MentionTypeVote]


async def retype_entities(tx: Tx, bank_id: str, entity_ids: Iterable[str]) -> None:
    """Set each entity's type to what its mentions say (``settled_type``), where it differs.

    One read for all the entities and one write for those that change; their lookup fields
    are rebuilt, since the index keys of a name depend on its type class.
    """
    ids = sorted(set(entity_ids))
    if not ids:
        return
    rows = await tx.rows(
        "resolve/mention_types", {"bank_id": bank_id, "ids": ids}, _MentionTypesRow
    )
    changes: list[dict[str, str | None]] = []
    for r in rows:
        votes = [(v.type, v.guessed) for v in r.votes for _ in range(v.n)]
        kind = settled_type(r.type, is_label=r.is_label, votes=votes)
        if kind != r.type:
            changes.append({"id": r.id, "type": kind})
    if changes:
        await tx.run("resolve/set_types", {"bank_id": bank_id, "entities": changes})
        await refresh_lookup_fields(tx, bank_id, [str(c["id"]) for c in changes])


async def refresh_lookup_fields(tx: Tx, bank_id: str, entity_ids: Iterable[str]) -> None:
    """Rebuild the full-text lookup fields of entities from their current names."""
    ids = sorted(set(entity_ids))
    if not ids:
        return
    rows = await tx.rows("resolve/names_of", {"bank_id": bank_id, "ids": ids}, _NamesOfRow)
    await tx.run(
        "resolve/set_lookup_fields",
        {
            "bank_id": bank_id,
            "entities": [
                {
                    "id": r.id,
                    **msgspec.structs.asdict(lookup_fields(r.keys, r.type, r.canonical_name)),
                }
                for r in rows
            ],
        },
    )


def _claim_rows(ws: WorkingSet) -> list[dict[str, object]]:
    """The batch's name claims, one row per entity and name.

    A popular entity is named in most facts of a batch; its claim's list of facts is
    rewritten once per batch, not once per fact (the list grows with the bank).
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for c in ws.claims:
        entity_id = ws.final(c.entity_id)
        row = rows.setdefault(
            (entity_id, c.key),
            {
                "entity_id": entity_id,
                "key": c.key,
                "texts": [],
                "stated": False,
                "source": "alias" if c.stated else "mention",
                "first_memory_id": c.memory_id,
                "memory_ids": [],
                "at": cypher_datetime(c.at) if c.at else None,
            },
        )
        row["stated"] = row["stated"] or c.stated
        if c.text not in row["texts"]:
            row["texts"].append(c.text)
        if c.memory_id is not None and c.memory_id not in row["memory_ids"]:
            row["memory_ids"].append(c.memory_id)
    return list(rows.values())


def _names_of(ws: WorkingSet) -> dict[str, tuple[str | None, list[str]]]:
    """The type and names of every entity in a working set."""
    return {eid: (e.type, list(e.names)) for eid, e in ws.entities.items()}


def _dissenting(
    facts: Sequence[FactToResolve], resolved: Sequence[Sequence[ResolvedMention]]
) -> set[str]:
    """Entities the batch gave a mention whose type may change theirs (``may_change_type``)."""
    votes: dict[str, list[str | None]] = {}
    current: dict[str, str] = {}
    for _, r, m in as_given(facts, resolved):
        votes.setdefault(r.entity_id, []).append(m.type)
        current[r.entity_id] = r.type
    return {eid for eid, v in votes.items() if may_change_type(current[eid], v)}


def _fact_input(fact: FactToResolve, labels: set[str]) -> FactInput:
    return FactInput(
        mentions=tuple(
            Mention(
                text=m.text,
                type=m.type or None,
                aliases=m.aliases,
                is_label=bool(m.type) and m.type.casefold() in labels,
                resolve=m.resolve,
                type_guessed=m.type_guessed,
            )
            for m in fact.mentions
        ),
        at=fact.at,
        content=fact.content,
        memory_id=fact.memory_id,
    )


def _entity_row(entity: WorkingEntity) -> dict[str, object]:
    fields = lookup_fields(entity.names, entity.type, entity.canonical)
    return {
        "id": entity.id,
        "canonical_name": entity.canonical,
        "name_key": name_key(entity.canonical),
        "type": entity.type or "",
        "is_label": entity.is_label,
        "at": cypher_datetime(entity.first),
        **msgspec.structs.asdict(fields),
    }


def _counter(pairs: Iterable[tuple[str, int]]) -> Counter[str]:
    return Counter(dict(pairs))
