"""Settle against the graph: read a block, replay it (``settle``), apply the plan as repairs.

Runs in a write transaction of its own under the bank lock, after the writes it covers
(decision 0018): ``replay_block`` reads and decides, ``apply_replay`` writes. Every change is
an audited record with ``by: "settle"``: a split (its new entity is *not* recorded as
different from its source, since no person said so) or a merge (the pair's open review is
settled "same"; reviews about an entity merged away are closed with the reason). Entities
that a person merged, split or told apart, vocabulary values and entities with many mentions
are anchored: their mentions never move.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime

import msgspec
import numpy as np
import numpy.typing as npt

from app.domain.names import entity_names, name_key
from app.resolve.memory_bank import free_hubs, split_block
from app.resolve.port import FactToResolve, MentionToResolve, PendingSettle, ResolvedMention
from app.resolve.repair import MentionUse, StoredClaim, plan_split, trim_records
from app.resolve.review_rows import review_id, review_rows
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy
from app.resolve.settle import (
    NEW_PREFIX,
    SettleFact,
    SettleMention,
    SettlePlan,
    plan,
    replay,
    settle_company_texts,
)
from app.resolve.working_set import NeighbourInfo, ReviewRecord, WorkingEntity
from app.store.graph import Tx, cypher_datetime
from app.store.search_keys import bank_key
from app.store.vectors import QueryVectors

# The store's embedding model (``Embedder.embed``).
Embed = Callable[[Sequence[str]], Awaitable[QueryVectors]]
# The vectors the vector store holds for facts of a bank, by id (``VectorStore.vectors``).
StoredVectors = Callable[[str, Sequence[str]], Awaitable[Mapping[str, npt.NDArray[np.float32]]]]
# Texts a settle embedded that are kept (float32 rows of 384: about 12 MB).
EMBED_CACHE = 8192


class CachedEmbed:
    """The embedding model behind a bounded cache of the texts settles embed.

    A block is settled again at every write that touches it, with the same facts' texts: each
    is embedded once while it is in the cache. A vector depends on its text only, so the cache
    changes no outcome.
    """

    def __init__(self, embed: Embed, size: int = EMBED_CACHE) -> None:
        self._embed = embed
        self._size = size
        self._vectors: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()

    async def __call__(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The texts' vectors, in order; the model embeds only those not in the cache."""
        # What the cache holds is taken before the model runs: the settle of another bank may
        # push it out meanwhile.
        found = {t: self._vectors[t] for t in dict.fromkeys(texts) if t in self._vectors}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            rows = await self._embed(missing)
            found.update(zip(missing, np.asarray(rows, dtype=np.float32), strict=True))
        for text, row in found.items():
            self._vectors[text] = row
            self._vectors.move_to_end(text)
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)
        return np.stack([found[t] for t in texts])


SETTLE_REASON = "settle: re-resolved with the evidence of the whole block"


class _FactRow(msgspec.Struct):
    memory_id: str
    at: datetime
    content: str
    mentions: list[SettleMention]


class _IdRow(msgspec.Struct):
    id: str


class _ClaimRow(msgspec.Struct):
    claim: StoredClaim


class _Use(msgspec.Struct):
    memory_id: str
    surface: str | None = None
    at: datetime | None = None


class _UsesRow(msgspec.Struct):
    uses: list[_Use]
    total: int


class _FactMention(msgspec.Struct):
    entity_id: str
    canonical_name: str
    mention: str | None = None


class _FactNamesRow(msgspec.Struct):
    id: str
    mentions: list[_FactMention]


class MarkedMention(msgspec.Struct, frozen=True):
    """A mention of a fact no settle has covered, as it was written."""

    entity_id: str
    text: str | None = None
    type: str | None = None
    type_guessed: bool = False


class MarkedFact(msgspec.Struct, frozen=True):
    """A fact written but not settled (``reconcile/settle_pending``)."""

    bank_id: str
    memory_id: str
    mentions: list[MarkedMention]


def pending_of_marked(facts: Iterable[MarkedFact]) -> dict[str, PendingSettle]:
    """What the settles of marked facts must cover, per bank, from the mentions as written.

    The names their writes looked up are their mentions' (aliases stated with a mention are
    not kept on it, but are the entity's names, which the block walk looks up anyway). Every
    entity they touched is recounted: which votes dissented is not kept either.
    """
    out: dict[str, PendingSettle] = {}
    for fact in facts:
        touched = frozenset(m.entity_id for m in fact.mentions)
        pending = PendingSettle(
            names=frozenset(
                (key, None if m.type_guessed else (m.type or None))
                for m in fact.mentions
                if (key := name_key(m.text or ""))
            ),
            touched=touched,
            retype=touched,
            memory_ids=frozenset({fact.memory_id}),
        )
        known = out.get(fact.bank_id)
        out[fact.bank_id] = pending if known is None else known.join(pending)
    return out


class SettleOutcome(msgspec.Struct, frozen=True):
    """What a settle changed: record ids of its splits and merges, and the block's size."""

    splits: tuple[str, ...]
    merges: tuple[str, ...]
    block: int
    replayed: int
    # Entities whose mentions the settle moved (survivors of its splits and merges).
    changed: tuple[str, ...] = ()


def as_given(
    facts: Sequence[FactToResolve], resolved: Sequence[Sequence[ResolvedMention]]
) -> Iterator[tuple[FactToResolve, ResolvedMention, MentionToResolve]]:
    """Each resolved mention with its fact and the mention as the batch gave it."""
    for fact, entities in zip(facts, resolved, strict=True):
        # By surface and type: one fact may name two things alike ("Adelaide" the person and
        # "Adelaide" the city). By surface alone both would get one of their types, and a
        # settle replaying that type would move the person's mention onto the city.
        given = {(m.text, m.type): m for m in fact.mentions}
        for r in entities:
            m = given.get((r.mention, r.mention_type))
            if m is not None:
                yield fact, r, m


async def annotate_mentions(
    tx: Tx,
    bank_id: str,
    facts: Sequence[FactToResolve],
    resolved: Sequence[Sequence[ResolvedMention]],
) -> None:
    """Keep on each new MENTIONS edge the type its mention had and its exact-only flag."""
    rows = [
        {
            "memory_id": fact.memory_id,
            "entity_id": r.entity_id,
            "mention": r.mention,
            "type": m.type or None,
            "exact": not m.resolve,
            "guessed": m.type_guessed,
        }
        for fact, r, m in as_given(facts, resolved)
    ]
    if rows:
        await tx.run("resolve/annotate_mentions", {"bank_id": bank_id, "mentions": rows})


class BlockReplay(msgspec.Struct, frozen=True):
    """What a settle decided for its block, before anything of it is written.

    ``plan`` is None when nothing in the block may move (every entity pinned or anchored).
    """

    plan: SettlePlan | None
    reviews: tuple[ReviewRecord, ...]
    block: int
    replayed: int


async def replay_block(
    tx: Tx,
    bank_id: str,
    block: Iterable[str],
    entities: Sequence[WorkingEntity],
    neighbour_info: dict[str, NeighbourInfo],
    *,
    bank_entities: int,
    policy: ResolutionPolicy = DEFAULT_POLICY,
    embed: Embed | None = None,
    stored_vectors: StoredVectors | None = None,
    touched: Collection[str] = (),
) -> BlockReplay:
    """Replay the block (``entities``: its entities as stored); reads only.

    ``touched``: the entities the settled writes gave mentions, freed first (``split_block``).

    ``embed``: the store's embedding model, for namesakes told apart by their facts' company
    (``company``) and by how alike a fact is to each one's facts (``evidence.alike_pick``);
    without it, neither. ``stored_vectors``: the facts' vectors as the vector store holds
    them (the model embeds only those not published yet).
    """
    ids = sorted(set(block))
    pinned = {
        r.id for r in await tx.rows("resolve/settle_pins", {"bank_id": bank_id, "ids": ids}, _IdRow)
    }
    free, anchored = split_block(entities, pinned=pinned, touched=touched)
    if not free:
        return BlockReplay(None, (), len(ids), 0)
    rows = await tx.rows(
        "resolve/settle_facts", {"bank_id": bank_id, "ids": sorted(free)}, _FactRow
    )
    facts = [
        SettleFact(
            memory_id=r.memory_id, at=r.at, content=r.content or "", mentions=tuple(r.mentions)
        )
        for r in rows
    ]
    by_id = {e.id: e for e in entities}
    texts = settle_company_texts(facts, free) if embed is not None else {}
    vectors = {}
    fact_vectors: Mapping[str, npt.ArrayLike] = {}
    if embed is not None:
        if texts:
            vectors = dict(zip(texts, await embed(list(texts.values())), strict=True))
        fact_vectors = await _fact_vectors(bank_id, facts, embed, stored_vectors)
    result = replay(
        facts,
        free,
        [by_id[i] for i in sorted(anchored)],
        neighbour_info,
        bank_entities=bank_entities,
        policy=policy,
        company_vectors=vectors,
        fact_vectors=fact_vectors,
        degrees=free_hubs(entities, free, bank_entities=bank_entities, policy=policy),
    )
    first_seen: dict[str, datetime] = {}
    for f in facts:
        for m in f.mentions:
            if m.entity_id in free:
                first_seen[m.entity_id] = min(first_seen.get(m.entity_id, f.at), f.at)
    return BlockReplay(plan(result.targets, first_seen), result.reviews, len(ids), len(facts))


async def apply_replay(tx: Tx, bank_id: str, replayed: BlockReplay) -> SettleOutcome:
    """Write what ``replay_block`` decided: splits, merges and reviews."""
    if replayed.plan is None:
        return SettleOutcome((), (), replayed.block, replayed.replayed)
    applied = await apply_plan(tx, bank_id, replayed.plan)
    await _file_reviews(tx, bank_id, replayed.plan, applied.final, replayed.reviews)
    return SettleOutcome(
        applied.splits, applied.merges, replayed.block, replayed.replayed, applied.changed
    )


async def _fact_vectors(
    bank_id: str, facts: Sequence[SettleFact], embed: Embed, stored: StoredVectors | None
) -> dict[str, npt.ArrayLike]:
    """The facts' embeddings: the vector store's, and the model's for those not published yet.

    The retain embedded each fact's text once already; a block's facts are read there rather
    than embedded again at every settle that replays them.
    """
    found: dict[str, npt.ArrayLike] = {}
    if stored is not None:
        found.update(await stored(bank_id, [f.memory_id for f in facts]))
    missing = [f for f in facts if f.memory_id not in found]
    if missing:
        rows = await embed([f.content for f in missing])
        found.update(zip((f.memory_id for f in missing), rows, strict=True))
    return found


class _Applied(msgspec.Struct, frozen=True):
    splits: tuple[str, ...]
    merges: tuple[str, ...]
    final: dict[str, str]
    changed: tuple[str, ...]


async def apply_plan(tx: Tx, bank_id: str, settled: SettlePlan) -> _Applied:
    """Splits, then merges, each an audited record; then what derives from mentions."""
    from app.resolve.graph_resolver import merge_entities, refresh_lookup_fields

    now = datetime.now(UTC)
    real: dict[str, str] = {}
    split_ids: list[str] = []
    touched: set[str] = set()
    moved_facts: set[str] = set()
    for op in settled.splits:
        created = str(uuid.uuid4())
        split_id = str(uuid.uuid4())
        surfaces = {memory_id: list(names) for memory_id, names in op.surfaces.items()}
        uses_row = (
            await tx.rows(
                "entities/split_uses",
                {
                    "bank_id": bank_id,
                    "id": op.entity_id,
                    "memory_ids": list(op.memory_ids),
                    "surfaces": surfaces,
                },
                _UsesRow,
            )
        )[0]
        uses = [MentionUse(u.memory_id, u.surface or "", u.at) for u in uses_row.uses]
        claims = [
            r.claim
            for r in await tx.rows(
                "entities/claims", {"bank_id": bank_id, "id": op.entity_id}, _ClaimRow
            )
        ]
        source_key = await _canonical_key(tx, bank_id, op.entity_id)
        split_plan = plan_split(
            claims,
            uses,
            source_key=source_key,
            name=None,
            now=now,
            partial=frozenset(op.surfaces),
        )
        times = [u.at for u in uses if u.at is not None]
        await tx.run(
            "entities/split",
            {
                "bank_id": bank_id,
                "bank_key": bank_key(bank_id),
                "split_id": split_id,
                "source": op.entity_id,
                "memory_ids": list(op.memory_ids),
                "surfaces": surfaces,
                "claim_refs": list(split_plan.move),
                "reason": SETTLE_REASON,
                "by": "settle",
                "decided": False,
                "trims_json": msgspec.json.encode(trim_records(split_plan)).decode(),
                "entity": {
                    "id": created,
                    "canonical_name": split_plan.canonical,
                    "name_key": split_plan.canonical_key,
                    "first": cypher_datetime(min(times) if times else now),
                    "last": cypher_datetime(max(times) if times else now),
                },
            },
        )
        await tx.run(
            "entities/add_claims",
            {
                "bank_id": bank_id,
                "bank_key": bank_key(bank_id),
                "entity_id": created,
                "claims": [
                    msgspec.structs.asdict(c) | {"at": cypher_datetime(c.at) if c.at else None}
                    for c in split_plan.new_claims
                ],
            },
        )
        await tx.run(
            "entities/set_claims",
            {
                "bank_id": bank_id,
                "entity_id": op.entity_id,
                "updates": [
                    {"ref": t.ref, "memory_ids": t.memory_ids, "first_memory_id": t.first_memory_id}
                    for t in split_plan.trims
                ],
            },
        )
        real[op.part] = created
        split_ids.append(split_id)
        touched.update((op.entity_id, created))
        moved_facts.update(op.memory_ids)
    merge_ids: list[str] = []
    gone_ids: list[str] = []
    holder: dict[str, str] = {}

    def final(piece: str) -> str:
        eid = real.get(piece, piece)
        while eid in holder:
            eid = holder[eid]
        return eid

    for merge in settled.merges:
        keep, gone = final(merge.keep), final(merge.gone)
        if keep == gone:
            continue
        moved_facts.update(await _mentioning(tx, bank_id, gone))
        merge_id = await merge_entities(
            tx,
            bank_id,
            keep=keep,
            gone=gone,
            reason=SETTLE_REASON,
            by="settle",
        )
        await tx.run(
            "reviews/settle",
            {
                "bank_id": bank_id,
                "id": review_id(bank_id, keep, gone),
                "merge_id": merge_id,
                "reason": SETTLE_REASON,
                "by": "settle",
            },
        )
        holder[gone] = keep
        merge_ids.append(merge_id)
        gone_ids.append(gone)
        touched.add(keep)
    survivors = sorted({final(t) for t in touched})
    if survivors:
        await tx.run("resolve/recompute_entities", {"bank_id": bank_id, "ids": survivors})
        await _rename(tx, bank_id, survivors)
        await refresh_lookup_fields(tx, bank_id, survivors)
        await refresh_fact_names(tx, bank_id, sorted(moved_facts))
    if gone_ids:
        await tx.run(
            "resolve/close_reviews", {"bank_id": bank_id, "gone": gone_ids, "reason": SETTLE_REASON}
        )
    return _Applied(
        tuple(split_ids),
        tuple(merge_ids),
        {t: final(p) for t, p in settled.final.items()},
        tuple(survivors),
    )


async def _canonical_key(tx: Tx, bank_id: str, entity_id: str) -> str:
    rows = await tx.run("resolve/names_of", {"bank_id": bank_id, "ids": [entity_id]})
    return name_key(str(rows[0]["canonical_name"])) if rows else ""


async def _mentioning(tx: Tx, bank_id: str, entity_id: str) -> list[str]:
    rows = await tx.run("entities/mentioning", {"bank_id": bank_id, "ids": [entity_id]})
    return list(rows[0]["ids"]) if rows else []


async def _rename(tx: Tx, bank_id: str, ids: Sequence[str]) -> None:
    """Each survivor is called by its fullest name (most words, then most used)."""
    rows = await tx.run("resolve/names_of", {"bank_id": bank_id, "ids": list(ids)})
    entities = []
    for row in rows:
        keys = [str(k) for k in row["keys"]]
        canonical = str(row["canonical_name"])
        fullest = max(
            keys,
            key=lambda k: (len(k.split()), k == name_key(canonical), k),
            default=name_key(canonical),
        )
        if (
            fullest
            and fullest != name_key(canonical)
            and len(fullest.split()) > len(name_key(canonical).split())
        ):
            entities.append({"id": row["id"], "canonical_name": fullest, "name_key": fullest})
    if entities:
        await tx.run("resolve/rename_entities", {"bank_id": bank_id, "entities": entities})


async def refresh_fact_names(tx: Tx, bank_id: str, memory_ids: Sequence[str]) -> None:
    """Rebuild facts' ``entity_names`` (the keyword channel's entity field) as retain does.

    Anything that moves mentions between entities (a settle, a curator's merge or split) calls
    it in its own transaction, so keyword search finds the facts under their entities' names.
    """
    if not memory_ids:
        return
    rows = await tx.rows(
        "entities/fact_names", {"bank_id": bank_id, "ids": list(memory_ids)}, _FactNamesRow
    )
    facts = [
        {
            "id": row.id,
            "entity_names": entity_names(
                [
                    ResolvedMention(
                        entity_id=m.entity_id,
                        canonical_name=m.canonical_name,
                        mention=m.mention or m.canonical_name,
                    )
                    for m in row.mentions
                ]
            ),
        }
        for row in rows
    ]
    await tx.run("entities/set_fact_names", {"bank_id": bank_id, "facts": facts})


async def _file_reviews(
    tx: Tx,
    bank_id: str,
    settled: SettlePlan,
    final: dict[str, str],
    reviews: Sequence[ReviewRecord],
) -> None:
    rows = review_rows(
        bank_id,
        reviews,
        lambda eid: final.get(eid, eid),
        lambda a, b: not a.startswith(NEW_PREFIX) and not b.startswith(NEW_PREFIX),
        reason_prefix="settle: ",
    )
    if rows:
        await tx.run("resolve/file_reviews", {"bank_id": bank_id, "reviews": rows})
