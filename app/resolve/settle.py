"""Settle: re-resolve a block of entities from scratch, in an order that does not depend on arrival.

Resolving facts one at a time makes identities depend on their order: a bare "Tobias" that
arrives while one Tobias is known joins him, and stays with him when a second Tobias shows up
later. After each batch the store therefore hands the *block* the batch touched (the entities
that share a name key or a candidate channel with its mentions) to ``replay``: every fact
that mentions a *free* entity of the block is resolved again, on an empty working set that
holds only the *anchored* entities (those the settle must not rework: entities too large to
replay, entities a person merged, split or told apart, vocabulary values), in a canonical
order: full names first, then the short forms (``short_forms``), then the mentions of a full
name that namesakes share which nothing places (``namesakes_decided_last``: namesakes told
apart by what is said next to the name, or by the company their facts keep, ``company``; the
plain mentions, and those in none of the name's groups), each pass in event time, then text
(``fact_order``). Between namesakes, a fact clearly most like one holder's facts joins that
one (``evidence.alike_pick``, with the facts' embeddings). The result is a function of the
facts, not of their arrival.
``plan`` turns the difference between where each mention is and where the replay put it into
splits and merges, which the store applies through the audited repair machinery (``by:
"settle"``, revertible like any other record).

Pure: no I/O, no clock. The ids the replay creates are deterministic (``settle-0001`` in
creation order), so the same block always gives the same plan.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime

import msgspec
import numpy as np
import numpy.typing as npt

from app.domain.names import NameForm, name_form, name_key, type_class
from app.resolve.aliases import stated_alias_pairs
from app.resolve.batch import FactInput, resolve_one
from app.resolve.cluster import could_be_one, short_forms_ahead
from app.resolve.company import company_groups, company_texts
from app.resolve.guards import run_initials, type_conflict
from app.resolve.model import Mention
from app.resolve.qualifiers import Qualifier, qualifiers_in, telling_apart
from app.resolve.qualifiers import conflict as qualifier_conflict
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy, shortening
from app.resolve.shared_names import shared_names
from app.resolve.supplied_aliases import aliases_stated_for
from app.resolve.working_set import NeighbourInfo, ReviewRecord, WorkingEntity, WorkingSet

# Prefix of the ids a replay gives the entities it creates.
NEW_PREFIX = "settle-"
# What a review of namesakes told apart by company says (after the name).
COMPANY_REVIEW = (
    "two people or more of one name, nothing said next to it; told apart by what their facts"
    " are about"
)
# The same, for a name the text itself says more than one holds (``shared_names``).
SHARED_REVIEW = (
    "a name the text says is shared; its holders told apart by what their facts are about"
)


class SettleMention(msgspec.Struct, frozen=True, kw_only=True):
    """One mention of a stored fact: its surface, the type it was given, its entity now."""

    text: str
    entity_id: str
    type: str | None = None
    # ``resolve_entities: false`` or a vocabulary value: never moved by a settle.
    pinned: bool = False
    # The type was a local model's guess (``Mention.type_guessed``).
    type_guessed: bool = False


class SettleFact(msgspec.Struct, frozen=True, kw_only=True):
    """A stored fact of the block: id, time, text and every mention it has."""

    memory_id: str
    at: datetime
    content: str
    mentions: tuple[SettleMention, ...]


# A mention as a settle moves it: (memory id, entity id now, surface).
MentionSlot = tuple[str, str, str]


class Replay(msgspec.Struct, frozen=True, kw_only=True):
    """Where the replay put each free mention, and the reviews it filed.

    ``targets``: (memory id, entity id now, surface) → the entity it belongs to: an anchored
    entity's id or a replay id (``NEW_PREFIX``…). ``reviews`` name entities by the same ids.
    The surface is part of the slot: two names of one fact that a first pass took for one
    thing ("Kevin Chen … Dr. Chen") may part again.
    """

    targets: dict[MentionSlot, str]
    reviews: tuple[ReviewRecord, ...]


class SplitOp(msgspec.Struct, frozen=True, kw_only=True):
    """Take the mentions of ``memory_ids`` out of ``entity_id`` into a new entity ``part``.

    ``surfaces``: for a memory listed there, only the mentions written so move; the fact's
    other names of the entity stay (see ``Replay.targets``).
    """

    entity_id: str
    memory_ids: tuple[str, ...]
    part: str
    surfaces: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)


class MergeOp(msgspec.Struct, frozen=True, kw_only=True):
    """Fold ``gone`` into ``keep`` (entity ids, or ``part`` names of splits of this plan)."""

    keep: str
    gone: str


class SettlePlan(msgspec.Struct, frozen=True, kw_only=True):
    """Splits first, then merges; ``final`` maps every replay id to the entity that holds it."""

    splits: tuple[SplitOp, ...]
    merges: tuple[MergeOp, ...]
    final: dict[str, str]

    @property
    def empty(self) -> bool:
        """True when the block is already as the replay would have it."""
        return not self.splits and not self.merges


def fact_order(fact: SettleFact) -> tuple[datetime, str, str]:
    """Canonical replay order: event time, then text, then id (ties of time and text only).

    Time is part of the evidence, arrival is not; replaying in time order lets salience mean
    what it means on a first pass, whatever order the facts came in.
    """
    return (fact.at, fact.content, fact.memory_id)


def states_a_name(fact: SettleFact) -> bool:
    """Whether the fact's text says two of its mentions name the same thing."""
    return bool(stated_alias_pairs(fact.content, [m.text for m in fact.mentions]))


def names_two_of_a_name(fact: SettleFact) -> bool:
    """Whether the fact writes a short form ahead of a full form it could be (two people).

    "Little Sofia showed Sofia Reyes her costume" (``cluster.short_forms_ahead``): read
    before the other uses of the short name, it makes two holders of it known to each of them.
    """
    texts = [m.text for m in fact.mentions]
    forms = [name_form(name_key(m.text), type_class(m.type)) for m in fact.mentions]
    return any(
        could_be_one(forms[i], forms[j]) for i, j in short_forms_ahead(fact.content, texts, forms)
    )


def short_forms(facts: Sequence[SettleFact]) -> set[tuple[str, str | None]]:
    """(text, type) of the facts' mentions that a replay decides after the full names.

    Names of one word once titles and legal forms are gone ("Tobias", "Dr. Haverkamp"), and
    names that are a short form of a longer name among the facts: words left out ("Pixel 9"
    of "Google Pixel 9") or a run of words written as its initials ("BH Tracker" of "Blue
    Harbor Tracker"). Like a bare given name, such a form is what a first pass guesses at:
    decided after every name it could stand for, it joins one only when the evidence
    separates them.
    """
    named = {(m.text, m.type) for f in facts for m in f.mentions}
    forms = {
        slot: name_form(name_key(slot[0]), type_class(slot[1])) for slot in sorted(named, key=str)
    }
    # A longer name a short form could shorten shares a word with it, or has a run of words
    # whose initials are one of its words: only those are compared.
    longer: defaultdict[str, list[NameForm]] = defaultdict(list)
    for form in forms.values():
        for word in {*form.words, *run_initials(form.words)}:
            longer[word].append(form)
    out: set[tuple[str, str | None]] = set()
    for slot, form in forms.items():
        if len(form.core) <= 1 or any(
            _shortens(form, other) for word in form.words for other in longer[word]
        ):
            out.add(slot)
    return out


def namesakes_decided_last(
    facts: Sequence[SettleFact], company: Mapping[tuple[str, int], Qualifier] | None = None
) -> set[tuple[str, int]]:
    """(memory id, index) of the mentions a replay decides last: namesakes' unplaced full names.

    A full name stated with qualifiers that cannot hold for one person ("Daniel Okafor from
    the choir", "Daniel Okafor, who runs the bike shop,") is held by two. A mention of it with
    no qualifier is then what a bare given name is: decided after the qualified mentions, it
    sees every holder with all its company, and joins one only when the evidence separates
    them. Decided in time order among them, it would join whichever holder's company happened
    to come first. ``company``: the mentions whose facts' company tells namesakes apart
    (``company.company_groups``), counted as qualified. Where a name has such groups, its
    mentions in none are decided last too, whatever is said next to them: each group's holder
    is then known with every facet its group gives it (what a person is, 0049), and a facet
    met before the rest of its holder's group does not make a holder of its own.
    """
    company = company or {}
    stated: defaultdict[tuple[str, str], set[tuple[Qualifier, ...]]] = defaultdict(set)
    plain: defaultdict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    ungrouped: defaultdict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    grouped: set[tuple[str, str]] = set()
    for fact in facts:
        said = [
            telling_apart(q)
            for q in qualifiers_in(
                fact.content, [m.text for m in fact.mentions], [m.type for m in fact.mentions]
            )
        ]
        for i, m in enumerate(fact.mentions):
            name = (name_key(m.text), type_class(m.type))
            kept = company.get((fact.memory_id, i))
            if kept is None:
                ungrouped[name].append((fact.memory_id, i))
            else:
                grouped.add(name)
            if said[i] or kept is not None:
                stated[name].add((*said[i], kept) if kept is not None else said[i])
            else:
                plain[name].append((fact.memory_id, i))
    out: set[tuple[str, int]] = set()
    for name in grouped:
        out.update(ungrouped[name])
    for name, mentions in plain.items():
        held = sorted(stated.get(name, ()))
        if any(qualifier_conflict(a, b) for a, b in itertools.combinations(held, 2)):
            out.update(mentions)
    return out


def settle_company_texts(
    facts: Sequence[SettleFact], free: Iterable[str]
) -> dict[tuple[str, int], str]:
    """The texts whose embeddings ``replay`` reads for namesakes (``company.company_texts``)."""
    free_ids = frozenset(free)
    return company_texts(
        [(f.memory_id, f.content, _moving_names(f, free_ids)) for f in facts], said_shared(facts)
    )


def said_shared(facts: Iterable[SettleFact]) -> frozenset[str]:
    """Name keys that some fact says more than one holds (``shared_names``)."""
    return frozenset(
        name_key(f.mentions[i].text)
        for f in facts
        for i in shared_names(f.content, [m.text for m in f.mentions], [m.type for m in f.mentions])
    )


def _moving_names(fact: SettleFact, free: frozenset[str]) -> list[tuple[str, str | None]]:
    """(text, type) of the fact's mentions a replay decides; ("", None) for the others.

    Only those are grouped by company: an anchored entity's mentions stay where they are, and a
    large one is held by many facts, whose embedding would be the settle's largest cost.
    """
    return [
        (m.text, m.type) if m.entity_id in free and not m.pinned else ("", None)
        for m in fact.mentions
    ]


def _shortens(short: NameForm, long_: NameForm) -> bool:
    if type_conflict(short.type_class, long_.type_class):
        return False
    alignment = shortening(short, long_)
    return alignment is not None and (alignment.unmatched_long > 0 or alignment.initials > 0)


def replay(
    facts: Sequence[SettleFact],
    free: Iterable[str],
    anchored: Sequence[WorkingEntity],
    neighbour_info: Mapping[str, NeighbourInfo],
    *,
    bank_entities: int,
    policy: ResolutionPolicy = DEFAULT_POLICY,
    company_vectors: Mapping[tuple[str, int], npt.ArrayLike] | None = None,
    fact_vectors: Mapping[str, npt.ArrayLike] | None = None,
    degrees: Mapping[str, int] | None = None,
) -> Replay:
    """Resolve again every free mention of ``facts`` in canonical order (see the module doc).

    Three passes over the facts in time order: first every name of two words or more, then
    the short names ("Tobias", "Dr. Haverkamp"), with the rest of their fact resolved, then
    the plain mentions of a full name two namesakes hold. Those are the names a first pass
    guesses at: decided after the rest, each sees every holder of its name the block knows,
    with all their company, and joins one only when the evidence separates them (otherwise a
    new entity and a review). A later pass's mentions are read, not decided, in an earlier
    one: "from Tacoma" states a place whichever pass decides "Tacoma".

    ``facts`` must hold every stored fact that mentions a free entity. ``anchored`` are loaded
    as they are stored (candidates, fixed); mentions of any entity that is not free stay
    where they are and count as context. ``neighbour_info`` gives the degree and series of
    the entities only known as neighbours. ``company_vectors``: the embeddings of the texts
    ``settle_company_texts`` gives, which tell namesakes apart by their facts' company.
    ``fact_vectors``: the embeddings of the facts' texts, by memory id: a short or plain name of
    namesakes joins the one whose facts its fact is clearly most like (``evidence.alike_pick``).
    ``degrees``: the stored degree of the free hubs (``memory_bank.free_hubs``); the entity a
    replayed mention of one joins counts at least that degree (``WorkingSet.keep_degree``), so
    a hub's company weighs nothing from its first replayed fact on, as outside the replay.
    """
    free_ids = frozenset(free)
    counter = itertools.count(1)
    ws = WorkingSet(
        policy, bank_entities=bank_entities, new_id=lambda: f"{NEW_PREFIX}{next(counter):04d}"
    )
    ws.neighbour_info.update(neighbour_info)
    ws.fact_vectors = unit_rows(fact_vectors) if fact_vectors else None
    ws.read_topics = True
    shared = said_shared(facts)
    # Hubs keep company with everyone: writing one says nothing about who a name's holder is.
    hubs = {e.id for e in anchored} | set(degrees or ())
    company = company_groups(
        [(f.memory_id, f.content, _moving_names(f, free_ids)) for f in facts],
        company_vectors or {},
        shared,
        {
            f.memory_id: {name_key(m.text) for m in f.mentions if m.entity_id not in hubs}
            for f in facts
        },
    )
    for entity in anchored:
        ws.load(_copy(entity))
    ordered = sorted(facts, key=fact_order)
    # In the passes of short and plain names, a fact that states two of its names are one
    # ("Bartholomew Finch, whom everyone calls Bart") is read before the others: the name it
    # defines is then known to every use of it, whether the statement came first in time, or
    # in its document, or not. Full names keep time order.
    stating = {f.memory_id for f in ordered if states_a_name(f) or names_two_of_a_name(f)}
    statements_first = sorted(ordered, key=lambda f: f.memory_id not in stating)
    moving = {
        f.memory_id: [
            i for i, m in enumerate(f.mentions) if m.entity_id in free_ids and not m.pinned
        ]
        for f in ordered
    }
    short = short_forms(facts)
    last = namesakes_decided_last(facts, company)
    raw: dict[MentionSlot, str] = {}

    def stage(fact: SettleFact, i: int) -> int:
        if (fact.memory_id, i) in last:
            return 2
        return 1 if (fact.mentions[i].text, fact.mentions[i].type) in short else 0

    for current in range(3):
        for fact in ordered if current == 0 else statements_first:
            todo = [i for i in moving[fact.memory_id] if stage(fact, i) == current]
            if not todo:
                continue
            # Names of this pass are decided; the others stay where an earlier pass or the
            # store put them, and those of later passes wait (left out, but read).
            keep = [
                i
                for i, m in enumerate(fact.mentions)
                if i in todo
                or i not in moving[fact.memory_id]
                or (current > 0 and (fact.memory_id, m.entity_id, m.text) in raw)
            ]
            fixed: dict[int, str] = {}
            for position, i in enumerate(keep):
                if i not in todo:
                    m = fact.mentions[i]
                    slot = (fact.memory_id, m.entity_id, m.text)
                    fixed[position] = ws.final(raw.get(slot, m.entity_id))
            assigned = resolve_one(
                ws,
                FactInput(
                    mentions=tuple(_mention(fact, i, company) for i in keep),
                    at=fact.at,
                    content=fact.content,
                    memory_id=fact.memory_id,
                    later=tuple(
                        _mention(fact, i, company)
                        for i in moving[fact.memory_id]
                        if stage(fact, i) > current
                    ),
                ),
                fixed,
            )
            _record(
                ws, raw, fact, {i: assigned[p] for p, i in enumerate(keep) if i in todo}, degrees
            )
    targets = {slot: ws.final(eid) for slot, eid in raw.items()}
    for record in company_reviews(facts, company, targets, shared):
        ws.review(record)
    return Replay(targets=targets, reviews=tuple(ws.reviews))


def _record(
    ws: WorkingSet,
    raw: dict[MentionSlot, str],
    fact: SettleFact,
    decided: Mapping[int, str | None],
    degrees: Mapping[str, int] | None,
) -> None:
    """Note where a pass put each decided mention of ``fact`` (the first pass to decide it)."""
    for i, eid in decided.items():
        if not eid:
            continue
        m = fact.mentions[i]
        raw.setdefault((fact.memory_id, m.entity_id, m.text), eid)
        if degrees and m.entity_id in degrees:
            ws.keep_degree(ws.final(eid), degrees[m.entity_id])


def company_reviews(
    facts: Sequence[SettleFact],
    company: Mapping[tuple[str, int], Qualifier],
    targets: Mapping[MentionSlot, str],
    shared: Collection[str] = (),
) -> list[ReviewRecord]:
    """A review for each name that the company its facts keep parted into namesakes.

    Nothing next to the name told them apart, only what their facts are about: a person should
    be able to confirm it ("different") or undo it ("same", a merge the settle keeps). Each
    group is named by the entity most of its mentions ended in; a name whose groups ended in
    one entity (other evidence joined them) has nothing to review. ``shared``: the name keys
    the text says more than one holds, whose review says so.
    """
    by_fact = {f.memory_id: f for f in facts}
    ended: defaultdict[str, defaultdict[str, Counter[str]]] = defaultdict(
        lambda: defaultdict(Counter)
    )
    surface: dict[str, str] = {}
    for (memory_id, i), label in sorted(company.items()):
        mention = by_fact[memory_id].mentions[i]
        target = targets.get((memory_id, mention.entity_id, mention.text))
        if target is None:
            continue
        name = label.key.split("#", 1)[0]
        surface.setdefault(name, mention.text)
        ended[name][label.key][target] += 1
    out: list[ReviewRecord] = []
    for name, groups in sorted(ended.items()):
        holders: Counter[str] = Counter()
        for _, counts in sorted(groups.items()):
            holders[counts.most_common(1)[0][0]] += sum(counts.values())
        if len(holders) < 2:
            continue
        first, *others = holders
        sizes = " and ".join(str(n) for n in holders.values())
        why = SHARED_REVIEW if name in shared else COMPANY_REVIEW
        out.append(
            ReviewRecord(
                entity_id=first,
                others=tuple(others),
                reason=f"{surface[name]}: {why} ({sizes} facts alike)",
                evidence=(),
            )
        )
    return out


def unit_rows(vectors: Mapping[str, npt.ArrayLike]) -> dict[str, npt.NDArray[np.float64]]:
    """Each vector scaled to length one (a dot product is then a cosine)."""
    out = {}
    for key, row in vectors.items():
        v = np.asarray(row, dtype=np.float64)
        out[key] = v / max(float(np.linalg.norm(v)), 1e-12)
    return out


def _mention(fact: SettleFact, i: int, company: Mapping[tuple[str, int], Qualifier]) -> Mention:
    m = fact.mentions[i]
    return Mention(
        text=m.text,
        type=m.type,
        aliases=aliases_stated_for(fact.content, m.text),
        type_guessed=m.type_guessed,
        company=company.get((fact.memory_id, i)),
    )


def _copy(entity: WorkingEntity) -> WorkingEntity:
    """A fresh copy: the replay changes counts and neighbours of what it loads."""
    return WorkingEntity(
        id=entity.id,
        canonical=entity.canonical,
        type=entity.type,
        first=entity.first,
        last=entity.last,
        names=dict(entity.names),
        mentions=entity.mentions,
        neighbours=Counter(entity.neighbours),
        unloaded_degree=entity.unloaded_degree,
        is_label=entity.is_label,
        decided_apart=set(entity.decided_apart),
        type_votes=Counter(entity.type_votes),
    )


def plan(targets: Mapping[MentionSlot, str], first_seen: Mapping[str, datetime]) -> SettlePlan:
    """The splits and merges that make the block what the replay says.

    Each entity keeps its largest part (most facts; ties: the replay entity created first) and
    gives every other part to a new entity (a split); then the pieces that the replay put
    together are merged: into the anchored entity when the replay joined them to one, else
    into the piece with the most facts (ties: the one seen first, then the smaller id).
    ``first_seen``: each current entity's first mention, for the ties. A fact whose names of
    one entity the replay parted gives a split only the surfaces that leave.
    """
    parts: dict[str, dict[str, dict[str, list[str]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    written: dict[tuple[str, str], set[str]] = defaultdict(set)
    for (memory_id, entity_id, surface), target in sorted(targets.items()):
        parts[entity_id][target][memory_id].append(surface)
        written[(entity_id, memory_id)].add(surface)
    splits: list[SplitOp] = []
    # piece -> (target, facts it holds)
    pieces: dict[str, tuple[str, int]] = {}
    for entity_id in sorted(parts):
        by_target = parts[entity_id]
        ordered = sorted(by_target, key=lambda t: (-len(by_target[t]), t))
        main = ordered[0]
        pieces[entity_id] = (main, len(by_target[main]))
        for target in ordered[1:]:
            part = f"{entity_id}~{target}"
            moving = by_target[target]
            surfaces = {
                memory_id: tuple(names)
                for memory_id, names in moving.items()
                if set(names) != written[(entity_id, memory_id)]
            }
            splits.append(
                SplitOp(entity_id=entity_id, memory_ids=tuple(moving), part=part, surfaces=surfaces)
            )
            pieces[part] = (target, len(moving))
    groups: dict[str, list[str]] = defaultdict(list)
    for piece, (target, _) in pieces.items():
        groups[target].append(piece)
    merges: list[MergeOp] = []
    final: dict[str, str] = {}
    for target in sorted(groups):
        members = groups[target]
        if not target.startswith(NEW_PREFIX):
            keep = target  # an anchored entity takes them all
        else:
            keep = min(members, key=lambda p: (-pieces[p][1], _seen(p, first_seen), p))
        for piece in sorted(members):
            if piece != keep:
                merges.append(MergeOp(keep=keep, gone=piece))
        final[target] = keep
    return SettlePlan(splits=tuple(splits), merges=tuple(merges), final=final)


def _seen(piece: str, first_seen: Mapping[str, datetime]) -> tuple[bool, float]:
    seen = first_seen.get(piece.split("~", 1)[0])
    return (seen is None, seen.timestamp() if seen is not None else 0.0)
