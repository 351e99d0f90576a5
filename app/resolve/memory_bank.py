"""A bank's entity side in memory: the retain-then-settle procedure without a database.

The store-backed resolver (``graph_resolver``) runs resolution over what it loads from Neo4j,
then settles the block the batch touched. ``MemoryBank`` runs the same two steps over facts
kept in memory, so that the offline simulation (scripts/sim_identity.py) and the unit tests
see what the service does: first pass (``batch.resolve_one``), block (``block_of``), replay and
plan (``settle``), plan applied. Pure: no I/O, no clock.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

import msgspec

from app.domain.names import name_key
from app.resolve.batch import FactInput, could_merge, names_to_load, resolve_one
from app.resolve.linked import Linked
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy, hub_degree
from app.resolve.settle import (
    SettleFact,
    SettleMention,
    SettlePlan,
    plan,
    replay,
    settle_company_texts,
)
from app.resolve.supplied_aliases import aliases_stated_for
from app.resolve.working_set import ReviewRecord, WorkingEntity, WorkingSet

# Mentions an entity may have and still be replayed by a settle; a larger one is anchored
# (its mentions stay, it is a fixed candidate): replaying it would cost more with every fact.
MAX_SETTLE_MENTIONS = 60
# Facts a settle replays at most; past it the rest are anchored (``split_block``).
MAX_SETTLE_FACTS = 400


def entities_from_facts(facts: Iterable[SettleFact]) -> list[WorkingEntity]:
    """Entities as the store derives them from mentions: names, type, counts, neighbours."""
    out: dict[str, WorkingEntity] = {}
    for fact in facts:
        ids = sorted({m.entity_id for m in fact.mentions})
        for m in fact.mentions:
            e = out.get(m.entity_id)
            if e is None:
                e = out[m.entity_id] = WorkingEntity(
                    id=m.entity_id, canonical=m.text, type=m.type, first=fact.at, last=fact.at
                )
            _claim(e, fact.content, m)
        for eid in ids:
            e = out[eid]
            e.mentions += 1
            e.first, e.last = min(e.first, fact.at), max(e.last, fact.at)
            e.neighbours.update(other for other in ids if other != eid)
    for e in out.values():
        if e.type_votes:
            e.type = max(sorted(e.type_votes), key=lambda t: e.type_votes[t])
        e.canonical = _fullest(e.names) or e.canonical
    return list(out.values())


def _claim(entity: WorkingEntity, content: str, mention: SettleMention) -> None:
    """The names and type one mention gives its entity (stated aliases included)."""
    key = name_key(mention.text)
    if key:
        entity.names.setdefault(key, False)
    for alias in aliases_stated_for(content, mention.text):
        if name_key(alias):
            entity.names[name_key(alias)] = True
    if mention.type:
        entity.type_votes[mention.type] += 1


def _fullest(names: dict[str, bool]) -> str:
    return max(sorted(names), key=lambda k: len(k.split()), default="")


# Rounds when growing a block: each round looks up the names, and takes the company, of what
# the last one found. Two rounds of names only follow the company rounds (``COMPANY_HOPS``):
# the holders of the names the company brought in, then the other holders of those holders'
# names, so that a short name reached late is decided with every holder it may stand for, not
# with whichever the walk happened to reach (decision 0085).
BLOCK_HOPS = 5
# Rounds in which a block also takes in company (co-occurring entities), not only names.
# Company held outside a block is fixed context: the nearer that edge runs to the names a
# settle decides, the more their outcome depends on which write's block settled them last,
# which is arrival order (decision 0028).
COMPANY_HOPS = 3
# Entities a block adds at most to those its writes touched; past it, growth stops (what is
# left out is not replayed). Counted beyond the touched ones: a settle that covers many writes
# (decision 0018) still takes in the holders of their names.
MAX_BLOCK_ENTITIES = 64


def block_of(
    ws: WorkingSet,
    names: Sequence[tuple[str, str | None]],
    touched: Iterable[str],
    policy: ResolutionPolicy = DEFAULT_POLICY,
) -> set[str]:
    """The entities a batch touched, and what they could be or be told apart by, transitively.

    Each round adds the entities the last round's names could resolve to (lookups) and, in
    the first ``COMPANY_HOPS`` rounds, their company (co-occurring entities, the context of
    every decision about them), except through anchors (``is_anchor``), whose own decisions
    a settle does not revisit; a hub's names are looked up, its company is not taken
    (``is_hub``). A settle of a block closed this way gives the same identities
    whatever the arrival order of its facts; ``BLOCK_HOPS``, ``MAX_BLOCK_ENTITIES`` and
    ``MAX_SETTLE_FACTS`` bound it in a large bank (and there, order independence holds for
    what the bound lets in).
    """
    hub = hub_degree(ws.bank_entities, policy)
    found = {ws.final(i) for i in touched if ws.final(i) in ws.entities}
    bound = len(found) + MAX_BLOCK_ENTITIES
    frontier = set(found)
    probes = set(names)
    for hop in range(BLOCK_HOPS):
        if len(found) >= bound:
            break
        company: Counter[str] = Counter()
        for i in sorted(frontier):
            e = ws.entities[i]
            if is_anchor(e):
                continue
            probes.update((k, e.type) for k in e.names)
            if hop < COMPANY_HOPS and not is_hub(e, hub):
                company.update({n: c for n, c in e.neighbours.items() if n in ws.entities})
        named: set[str] = set()
        for key, entity_type in sorted(probes, key=str):
            for i in ws.lookup(key, entity_type):
                hit = ws.entities.get(ws.final(i))
                if (
                    hit is not None
                    and hit.id not in found
                    and could_merge(hit.names, hit.type, hit.is_label, [(key, entity_type)], policy)
                ):
                    named.add(hit.id)
        new = take_within(bound - len(found), found, named, company, ws.degree_of)
        if not new:
            break
        found |= new
        frontier, probes = new, set()
    return found


def take_within(
    room: int,
    found: set[str],
    named: set[str],
    company: Mapping[str, int],
    degree: Callable[[str], int],
) -> set[str]:
    """At most ``room`` of a round's finds outside ``found``: the names' holders, then company.

    A full block leaves some out. The entities a name could resolve to decide identities;
    company only informs them: kept first, every holder of a shared name is replayed, in any
    arrival order. ``company`` counts the facts each neighbour shares with the round's
    entities; the company shared most informs most and comes first, and of equals the less
    connected, whose company says more. Ids (random in the store, given in arrival order
    elsewhere) choose only among what is equal in both, so which company a full block keeps
    depends on neither the run nor the order.
    """
    taken = sorted(named - found)[:room]
    rest = sorted(company.keys() - named - found, key=lambda i: (-company[i], degree(i), i))
    taken += rest[: room - len(taken)]
    return set(taken)


def is_anchor(entity: WorkingEntity) -> bool:
    """An entity a settle never replays: a vocabulary value, or one with many mentions."""
    return anchored_by(mentions=entity.mentions, is_label=entity.is_label)


def anchored_by(*, mentions: int, is_label: bool) -> bool:
    """``is_anchor`` from the counts alone (known before an entity's names are read).

    What anchors an entity is what replaying it would cost, its mentions, and nothing that
    moves with the rest of the bank: a degree counted against the bank's size crosses the hub
    line and back as other entities arrive, and an anchor keeps the mentions it had when it
    crossed, so identities came to depend on when a settle ran (decision 0048).
    """
    return is_label or mentions > MAX_SETTLE_MENTIONS


def is_hub(entity: WorkingEntity, hub: float) -> bool:
    """A neighbour of a large share of the bank, whose company a block does not take.

    Its company tells nothing (the whole bank would come in); its names and mentions are
    settled like any other entity's.
    """
    return entity.degree >= hub


def split_block(
    entities: Sequence[WorkingEntity], *, pinned: set[str], touched: Collection[str] = ()
) -> tuple[set[str], set[str]]:
    """(free, anchored) ids of a block: pinned and large entities stay anchored.

    The rest are freed, up to ``MAX_SETTLE_FACTS`` mentions, by families of entities that share
    a name (``_families``), all of one or none: a settle that replays one holder of a name against
    another held fixed reads only the free one's facts, in which one holder's company cannot
    be told from another's, and undoes what a settle of both had parted. The families of the
    entities the writes ``touched`` come first (what the settle is for), then the smallest.
    """
    anchored = {e.id for e in entities if e.id in pinned or is_anchor(e)}
    free: set[str] = set()
    budget = MAX_SETTLE_FACTS
    families = _families([e for e in entities if e.id not in anchored])
    for family in sorted(
        families,
        key=lambda f: (
            not any(e.id in touched for e in f),
            sum(e.mentions for e in f),
            min(e.id for e in f),
        ),
    ):
        size = sum(e.mentions for e in family)
        if size > budget:
            anchored.update(e.id for e in family)
            continue
        free.update(e.id for e in family)
        budget -= size
    return free, anchored


def _families(entities: Sequence[WorkingEntity]) -> list[list[WorkingEntity]]:
    """The entities joined, transitively, by a name key two of them hold."""
    holders: defaultdict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(entities):
        for key in e.names:
            holders[key].append(i)
    linked = Linked(len(entities))
    for held in holders.values():
        for other in held[1:]:
            linked.join(held[0], other)
    return [[entities[i] for i in part] for part in linked.parts()]


def free_hubs(
    entities: Sequence[WorkingEntity],
    free: set[str],
    *,
    bank_entities: int,
    policy: ResolutionPolicy = DEFAULT_POLICY,
) -> dict[str, int]:
    """The stored degree of each free entity that is a hub, for its replay (``replay``).

    Below the hub line a degree only scales a neighbour's weight, and the replay's own count
    is what a settle weighs with; at the line the weight drops to nothing, and a count that
    starts again from nothing would cross it back.
    """
    hub = hub_degree(bank_entities, policy)
    return {e.id: e.degree for e in entities if e.id in free and is_hub(e, hub)}


class MemoryBank:
    """Facts with the entity of each mention, retained and settled as the service does."""

    def __init__(
        self,
        policy: ResolutionPolicy = DEFAULT_POLICY,
        *,
        settle: bool = True,
        embed: Callable[[Sequence[str]], Sequence[Sequence[float]]] | None = None,
    ) -> None:
        self.policy = policy
        self.settle = settle
        # The store's embedding model, for namesakes told apart by their facts' company.
        self.embed = embed
        self.facts: list[SettleFact] = []
        # Per fact, the index in the retained item of each stored mention.
        self.positions: list[list[int]] = []
        self.reviews: list[ReviewRecord] = []
        self.settles = 0
        self._ids = itertools.count(1)

    def _new_id(self) -> str:
        return f"e{next(self._ids):04d}"

    def working_set(self) -> WorkingSet:
        """Every entity, loaded as the store would load it."""
        entities = entities_from_facts(self.facts)
        ws = WorkingSet(self.policy, bank_entities=len(entities), new_id=self._new_id)
        for e in entities:
            ws.load(e)
        return ws

    def retain(self, fact: FactInput) -> None:
        """Resolve one fact (first pass), store it, then settle the block it touched."""
        ws = self.working_set()
        assigned = resolve_one(ws, fact)
        self._rename({gone: ws.final(gone) for gone in ws.merged_into})
        self.reviews.extend(ws.reviews)
        self.positions.append([i for i, eid in enumerate(assigned) if eid])
        self.facts.append(
            SettleFact(
                memory_id=fact.memory_id or f"m{len(self.facts):05d}",
                at=fact.at,
                content=fact.content,
                mentions=tuple(
                    SettleMention(
                        text=m.text, entity_id=eid, type=m.type, type_guessed=m.type_guessed
                    )
                    for m, eid in zip(fact.mentions, assigned, strict=True)
                    if eid
                ),
            )
        )
        if not self.settle:
            return
        after = self.working_set()
        block = block_of(after, names_to_load([fact]), [a for a in assigned if a], self.policy)
        touched = {after.final(a) for a in assigned if a}
        self.apply(self.settle_plan(after, block, touched))

    def settle_plan(
        self, ws: WorkingSet, block: set[str], touched: Collection[str] = ()
    ) -> SettlePlan:
        """Replay the block (``touched``: the entities the writes gave mentions) and plan."""
        entities = [ws.entities[i] for i in sorted(block)]
        free, anchored = split_block(entities, pinned=set(), touched=touched)
        facts = [f for f in self.facts if any(m.entity_id in free for m in f.mentions)]
        texts = settle_company_texts(facts, free) if self.embed is not None else {}
        vectors = {}
        if texts and self.embed is not None:
            vectors = dict(zip(texts, self.embed(list(texts.values())), strict=True))
        fact_vectors = {}
        if self.embed is not None and facts:
            rows = self.embed([f.content for f in facts])
            fact_vectors = {f.memory_id: row for f, row in zip(facts, rows, strict=True)}
        result = replay(
            facts,
            free,
            [ws.entities[i] for i in sorted(anchored)],
            {},
            bank_entities=len(ws.entities),
            policy=self.policy,
            company_vectors=vectors,
            fact_vectors=fact_vectors,
            degrees=free_hubs(entities, free, bank_entities=len(ws.entities), policy=self.policy),
        )
        self.settles += 1
        settled = plan(result.targets, {i: ws.entities[i].first for i in block})
        self.reviews.extend(
            msgspec.structs.replace(
                r,
                entity_id=settled.final.get(r.entity_id, r.entity_id),
                others=tuple(settled.final.get(o, o) for o in r.others),
            )
            for r in result.reviews
        )
        return settled

    def apply(self, settled: SettlePlan) -> None:
        """Splits then merges, on the stored mentions."""
        real: dict[str, str] = {}
        for op in settled.splits:
            new = self._new_id()
            real[op.part] = new
            moving = set(op.memory_ids)
            self.facts = [
                msgspec.structs.replace(
                    f,
                    mentions=tuple(
                        msgspec.structs.replace(m, entity_id=new)
                        if m.entity_id == op.entity_id
                        and m.text in op.surfaces.get(f.memory_id, (m.text,))
                        else m
                        for m in f.mentions
                    ),
                )
                if f.memory_id in moving
                else f
                for f in self.facts
            ]
        self._rename_reviews(lambda eid: real.get(eid, eid))
        self._rename(
            {real.get(op.gone, op.gone): real.get(op.keep, op.keep) for op in settled.merges}
        )

    def _rename(self, moves: dict[str, str]) -> None:
        moves = {a: b for a, b in moves.items() if a != b}
        if not moves:
            return

        def final(eid: str) -> str:
            while eid in moves:
                eid = moves[eid]
            return eid

        self.facts = [
            msgspec.structs.replace(
                f,
                mentions=tuple(
                    msgspec.structs.replace(m, entity_id=final(m.entity_id)) for m in f.mentions
                ),
            )
            for f in self.facts
        ]
        self._rename_reviews(final)

    def _rename_reviews(self, final: Callable[[str], str]) -> None:
        # A review names entities as they are now, as the store's do (a split's part by the id
        # it was given).
        self.reviews = [
            msgspec.structs.replace(
                r, entity_id=final(r.entity_id), others=tuple(final(o) for o in r.others)
            )
            for r in self.reviews
        ]

    def assignment(self) -> list[list[str]]:
        """The entity of every mention of every fact, in retain order."""
        return [[m.entity_id for m in f.mentions] for f in self.facts]

    def entity_count(self) -> int:
        """Distinct entities mentioned."""
        return len(Counter(m.entity_id for f in self.facts for m in f.mentions))
