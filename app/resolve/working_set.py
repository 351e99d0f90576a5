"""The entities a resolution batch can see, in memory, with the same lookups an index gives.

The store loads into a ``WorkingSet`` the entities its indexes returned for a batch's names
(and their neighbours' degrees); the batch then creates, names, touches and merges entities
here, so later facts of the same batch see what earlier ones did; finally the store persists
the changes the working set recorded. The offline simulation (scripts/sim_identity.py) uses the
same class over a whole corpus. Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

import msgspec
import numpy as np
import numpy.typing as npt

from app.domain.names import fold, index_keys, name_form, name_key, name_tokens, type_class
from app.resolve.evidence import ViewCache
from app.resolve.model import Candidate, Evidence, Neighbour
from app.resolve.qualifiers import Qualifier
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy, hub_degree, neighbour_weight

T = TypeVar("T")


@dataclass
class WorkingEntity:
    """One entity as the batch sees it."""

    id: str
    canonical: str
    type: str | None
    first: datetime
    last: datetime
    # name key -> stated alias (or confirmed / vocabulary) flag
    names: dict[str, bool] = field(default_factory=dict)
    mentions: int = 0
    # neighbour id -> facts together. For stored entities only the loaded (most frequent)
    # neighbours are here; ``unloaded_degree`` counts the rest.
    neighbours: Counter[str] = field(default_factory=Counter)
    unloaded_degree: int = 0
    is_label: bool = False
    decided_apart: set[str] = field(default_factory=set)
    stored: bool = False
    # Type classes its mentions gave it, counted per fact.
    type_votes: Counter[str] = field(default_factory=Counter)
    # Its type is a local model's guess, made here: the first firm type a mention brings
    # replaces it (``touch``).
    type_guessed: bool = False
    # What texts stated next to its names ("in Tacoma").
    qualifiers: set[Qualifier] = field(default_factory=set)
    # Topic words of the facts that mention it, seen in this working set (``topics``).
    topics: set[str] = field(default_factory=set)
    # Facts with an embedding that name it in this working set (``WorkingSet.fact_vectors``),
    # and the sum of their embeddings.
    facts: set[str] = field(default_factory=set)
    fact_sum: npt.NDArray[np.float64] | None = None

    @property
    def degree(self) -> int:
        """Distinct co-occurring entities."""
        return len(self.neighbours) + self.unloaded_degree


class NameClaim(msgspec.Struct, frozen=True):
    """A name an entity was called, with the fact it came from (None: a merge moved it)."""

    entity_id: str
    key: str
    text: str
    stated: bool
    memory_id: str | None
    at: datetime | None = None


class MergeRecord(msgspec.Struct, frozen=True):
    """``gone`` was folded into ``keep`` (by re-evaluation), with the evidence."""

    keep: str
    gone: str
    evidence: Evidence | None


class ReviewRecord(msgspec.Struct, frozen=True):
    """A pair to show a human: the subject entity and its best rivals, with evidence."""

    entity_id: str
    others: tuple[str, ...]
    reason: str
    evidence: tuple[Evidence, ...]


class NeighbourInfo(msgspec.Struct, frozen=True):
    """Degree and series key of a stored entity that is only known as a neighbour."""

    degree: int
    series: str = ""


def _fuller(a: str, b: str) -> bool:
    """True when name ``a`` has more words than ``b`` (the more complete canonical name)."""
    return len(name_tokens(name_key(a))) > len(name_tokens(name_key(b)))


def _trigrams(key: str) -> set[str]:
    s = f"  {fold(key)} "
    return {s[i : i + 3] for i in range(len(s) - 2)}


class _Mass(msgspec.Struct, frozen=True):
    """An entity's neighbour mass and the hub degrees it holds for (``WorkingSet._mass``)."""

    mass: float
    below: float
    at_or_above: float


class WorkingSet:
    """Entities, their co-occurrence and an in-memory candidate index, with a change log."""

    def __init__(
        self,
        policy: ResolutionPolicy = DEFAULT_POLICY,
        *,
        bank_entities: int = 0,
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self.policy = policy
        self.entities: dict[str, WorkingEntity] = {}
        self.neighbour_info: dict[str, NeighbourInfo] = {}
        # Topic words are evidence (``topics``): in a settle, not in a first pass, which sees a
        # few facts, not the name's.
        self.read_topics = False
        # Unit embeddings of the facts a settle replays, by memory id (``likeness``); None: no
        # likeness evidence (a first pass, which sees a few facts, not the block's).
        self.fact_vectors: Mapping[str, npt.NDArray[np.float64]] | None = None
        self.merged_into: dict[str, str] = {}
        # Entities in the whole bank (the hub rule needs it), kept current as entities come/go.
        self.bank_entities = bank_entities
        self._new_id = new_id
        self._by_key: dict[str, set[str]] = defaultdict(set)
        self._by_lookup: dict[str, set[str]] = defaultdict(set)
        self._by_token: dict[str, set[str]] = defaultdict(set)
        self._by_trigram: dict[str, set[str]] = defaultdict(set)
        self._series: dict[str, str] = {}
        self._candidates: dict[str, Candidate] = {}
        self._masses: dict[str, _Mass] = {}
        self._bare: dict[str, Candidate] = {}
        # Views of the candidate objects above, reused while an object is handed out again.
        self.views = ViewCache()
        # Answers that read only the name index and entities' names, types, labels and
        # exclusions (``lookup``, ``names_memo``): most facts change none of them, and a
        # popular entity is looked up and screened again by nearly every fact of a batch.
        self._lookups: dict[tuple[str, str | None], tuple[str, ...]] = {}
        self._names_memo: dict[Hashable, object] = {}
        # The change log the store persists.
        self.created: list[str] = []
        self.claims: list[NameClaim] = []
        self.merges: list[MergeRecord] = []
        self.reviews: list[ReviewRecord] = []
        self._filed: set[ReviewRecord] = set()
        self.touched: set[str] = set()

    # -- loading (store) ----------------------------------------------------------------------

    def load(self, entity: WorkingEntity) -> None:
        """Add a stored entity (idempotent: a second load of the same id is ignored)."""
        if entity.id in self.entities or entity.id in self.merged_into:
            return
        entity.stored = True
        self.entities[entity.id] = entity
        for key in entity.names:
            self._index_name(entity.id, key, entity.type)
        self._invalidate([entity.id], degree_changed=True)

    def list_stored_edge(self, a: str, b: str, count: int) -> None:
        """List a stored co-occurrence of two loaded entities that their loads left out."""
        for x, y in ((a, b), (b, a)):
            entity = self.entities[x]
            if y not in entity.neighbours:
                entity.neighbours[y] = count
                # The edge was counted in its degree, as one of the neighbours not listed.
                entity.unloaded_degree = max(0, entity.unloaded_degree - 1)
        self._invalidate([a, b], degree_changed=True)

    def keep_degree(self, eid: str, degree: int) -> None:
        """Count ``eid``'s degree as at least ``degree`` (what it is known to have elsewhere).

        A settle replays a hub's facts one by one; without this, its degree would start at
        nothing and its company would weigh as a stranger's until the replay reached the
        degree the bank knows it by (decision 0048).
        """
        entity = self.entities[eid]
        missing = degree - len(entity.neighbours)
        if missing > entity.unloaded_degree:
            entity.unloaded_degree = missing
            self._invalidate([eid], degree_changed=True)

    # -- index --------------------------------------------------------------------------------

    def _index_name(self, eid: str, key: str, entity_type: str | None) -> None:
        self._names_changed()
        keys = index_keys(key, entity_type)
        self._by_key[key].add(eid)
        for k in keys.lookup:
            self._by_lookup[k].add(eid)
        for token in keys.text.split():
            self._by_token[token].add(eid)
        for gram in _trigrams(key):
            self._by_trigram[gram].add(eid)

    def _names_changed(self) -> None:
        # Every change of a name, a stated flag, a canonical name or an exclusion reindexes
        # (add_name, load, merge), so this is where name-only answers are forgotten.
        self._lookups.clear()
        self._names_memo.clear()

    def _unindex(self, eid: str) -> None:
        self._names_changed()
        for table in (self._by_key, self._by_lookup, self._by_token, self._by_trigram):
            for ids in table.values():
                ids.discard(eid)

    def lookup(self, key: str, entity_type: str | None) -> tuple[str, ...]:
        """Candidate ids: exact key, then lookup keys, shared tokens, trigrams; capped (cached)."""
        cached = self._lookups.get((key, entity_type))
        if cached is None:
            cached = self._lookups[(key, entity_type)] = tuple(self._search(key, entity_type))
        return cached

    def names_memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, remembered under ``key`` until a name, type, label or exclusion changes.

        Only for answers that read nothing else of the entities (``reconsider.may_merge``).
        """
        if key not in self._names_memo:
            self._names_memo[key] = compute()
        return self._names_memo[key]  # type: ignore[return-value]

    def _search(self, key: str, entity_type: str | None) -> list[str]:
        form = name_form(key, type_class(entity_type))
        exact = sorted(self._by_key.get(key, ()))
        # Besides the exact matches, as the store's lookup keeps its full-text hits: many
        # entities of one bare name (each a mention no one could place) must not crowd the
        # full names it may stand for out of sight.
        cap = len(exact) + self.policy.max_candidates
        out = list(exact)
        seen = set(out)

        def add(ids: Iterable[str]) -> None:
            for i in ids:
                if i not in seen and len(out) < cap:
                    seen.add(i)
                    out.append(i)

        lookup_hits: set[str] = set()
        for k in index_keys(key, entity_type).lookup:
            lookup_hits |= self._by_lookup.get(k, set())
        if len(form.words) == 1:  # a single word may be the acronym of a stored name
            lookup_hits |= self._by_lookup.get(form.words[0], set())
        add(sorted(lookup_hits))
        token_hits: Counter[str] = Counter()
        for token in form.tokens:
            for i in self._by_token.get(token, ()):
                token_hits[i] += 1
        add(i for i, _ in sorted(token_hits.items(), key=lambda kv: (-kv[1], kv[0])))
        grams = _trigrams(key)
        gram_hits: Counter[str] = Counter()
        for gram in grams:
            for i in self._by_trigram.get(gram, ()):
                gram_hits[i] += 1
        fuzzy = [i for i, c in gram_hits.items() if c / len(grams) >= 0.5]
        add(sorted(fuzzy, key=lambda i: (-gram_hits[i], i)))
        return out

    # -- what the pure core reads -------------------------------------------------------------

    def candidate(
        self,
        eid: str,
        *,
        focus: frozenset[str] | None = None,
        focus_series: frozenset[str] = frozenset(),
    ) -> Candidate:
        """The entity as the decision core sees it.

        With ``focus`` (the candidate ids of a fact's mentions) only the neighbours that can
        matter to the fact are listed — those in ``focus`` or of a series in ``focus_series`` —
        and ``neighbour_mass`` carries the weight of all of them (``model.Candidate``): a
        popular entity's hundreds of neighbours are not rebuilt for every mention.
        """
        if focus is None:
            return self._full_candidate(eid)
        e = self.entities[eid]
        # Walk the (small) focus, not the (possibly hundreds of) neighbours, and build only
        # the neighbours shown: a popular entity changes with nearly every fact it is in.
        shown = {n: e.neighbours[n] for n in focus if n in e.neighbours}
        if focus_series:
            shown.update(
                (n, c) for n, c in e.neighbours.items() if self.series_of(n) in focus_series
            )
        return msgspec.structs.replace(
            self.bare_candidate(eid),
            neighbours=tuple(
                Neighbour(n, self.degree_of(n), self.series_of(n), count)
                for n, count in sorted(shown.items())
            ),
            neighbour_mass=self._mass(eid),
        )

    def bare_candidate(self, eid: str) -> Candidate:
        """The entity as the decision core sees it, without its neighbours (cached)."""
        cached = self._bare.get(eid)
        if cached is not None:
            return cached
        e = self.entities[eid]
        built = Candidate(
            entity_id=e.id,
            canonical_name=e.canonical,
            names=tuple(e.names),
            stated_names=tuple(k for k, stated in e.names.items() if stated),
            type=e.type,
            type_guessed=e.type_guessed,
            first_seen=e.first,
            last_seen=e.last,
            mention_count=e.mentions,
            degree=e.degree,
            neighbours=(),
            is_label=e.is_label,
            decided_apart=tuple(sorted(e.decided_apart)),
            qualifiers=tuple(sorted(e.qualifiers)),
            topics=frozenset(e.topics),
        )
        self._bare[eid] = built
        return built

    def _full_candidate(self, eid: str) -> Candidate:
        # Cached until the entity or one of its neighbours' degrees changes (see _invalidate).
        cached = self._candidates.get(eid)
        if cached is not None:
            return cached
        built = msgspec.structs.replace(
            self.bare_candidate(eid),
            neighbours=tuple(
                Neighbour(n, self.degree_of(n), self.series_of(n), count)
                for n, count in sorted(self.entities[eid].neighbours.items())
            ),
        )
        self._candidates[eid] = built
        return built

    def _mass(self, eid: str) -> float:
        """Weight of all of an entity's neighbours under the current hub rule (cached).

        The hub degree moves with every entity created; the mass only changes when it
        crosses the degree of a neighbour, so the cache keeps the range of hub degrees
        (``below`` < hub <= ``at_or_above``) under which the same neighbours count.
        """
        hub = hub_degree(self.bank_entities, self.policy)
        cached = self._masses.get(eid)
        if cached is not None and cached.below < hub <= cached.at_or_above:
            return cached.mass
        degrees = [self.degree_of(n) for n in self.entities[eid].neighbours]
        mass = sum(neighbour_weight(d, self.policy, hub) for d in degrees)
        self._masses[eid] = _Mass(
            mass,
            below=max((d for d in degrees if d < hub), default=-math.inf),
            at_or_above=min((d for d in degrees if d >= hub), default=math.inf),
        )
        return mass

    def _invalidate(
        self, ids: Iterable[str], *, entity: bool = True, degree_changed: bool = False
    ) -> None:
        """Forget cached views of ``ids`` after a change.

        Their full candidates always go (they list neighbour counts). ``entity``: their own
        fields changed (names, counts, times), so their bare candidates go too; with
        ``entity=False`` only neighbour counts changed. ``degree_changed``: their neighbour
        sets changed, so their neighbour masses go, and so do their neighbours' candidates and
        masses, which list and weigh them by degree. The mass depends on nothing else.
        """
        for eid in ids:
            self._candidates.pop(eid, None)
            if entity or degree_changed:
                self._bare.pop(eid, None)
            if degree_changed:
                self._masses.pop(eid, None)
                if eid in self.entities:
                    for n in self.entities[eid].neighbours:
                        self._candidates.pop(n, None)
                        self._masses.pop(n, None)

    def degree_of(self, eid: str) -> int:
        """Degree of an entity, loaded or only known as a neighbour."""
        if eid in self.entities:
            return self.entities[eid].degree
        info = self.neighbour_info.get(eid)
        return info.degree if info else 1

    def series_of(self, eid: str) -> str:
        """Series key ("sprint #") of an entity's canonical name (cached: names are stable)."""
        cached = self._series.get(eid)
        if cached is not None:
            return cached
        if eid in self.entities:
            e = self.entities[eid]
            series = index_keys(name_key(e.canonical), e.type).series
        else:
            info = self.neighbour_info.get(eid)
            series = info.series if info else ""
        self._series[eid] = series
        return series

    # -- changes ------------------------------------------------------------------------------

    def create(
        self,
        text: str,
        entity_type: str | None,
        at: datetime,
        *,
        is_label: bool,
        type_guessed: bool = False,
    ) -> str:
        """A new entity named ``text`` (``type_guessed``: its type is a local model's guess)."""
        eid = self._new_id()
        self.entities[eid] = WorkingEntity(
            id=eid,
            canonical=text.strip(),
            type=entity_type,
            first=at,
            last=at,
            is_label=is_label,
            type_guessed=type_guessed and bool(entity_type),
        )
        self.created.append(eid)
        self.bank_entities += 1
        return eid

    def add_name(
        self,
        eid: str,
        key: str,
        text: str,
        *,
        stated: bool,
        memory_id: str | None,
        at: datetime | None = None,
    ) -> None:
        """Record that ``eid`` was called ``text`` (a claim, with the fact it came from)."""
        e = self.entities[eid]
        if key not in e.names or (stated and not e.names[key]):
            e.names[key] = e.names.get(key, False) or stated
            self._index_name(eid, key, e.type)
            self._invalidate([eid])
        self.claims.append(NameClaim(eid, key, text, stated, memory_id, at))

    def qualify(self, eid: str, qualifiers: Iterable[Qualifier]) -> None:
        """Record what a text stated next to ``eid``'s name."""
        e = self.entities[eid]
        new = set(qualifiers) - e.qualifiers
        if new:
            e.qualifiers |= new
            self._names_changed()
            self._invalidate([eid])

    def note_topics(self, ids: Iterable[str], words: frozenset[str]) -> None:
        """A fact with these topic words mentions ``ids``: they take its words."""
        for eid in set(ids):
            e = self.entities.get(eid)
            if e is not None and not words <= e.topics:
                e.topics |= words
                self._invalidate([eid])

    def note_fact(self, ids: Iterable[str], memory_id: str) -> None:
        """The fact ``memory_id`` names ``ids``: its embedding counts among theirs."""
        vector = None if self.fact_vectors is None else self.fact_vectors.get(memory_id)
        if vector is None:
            return
        for eid in set(ids):
            e = self.entities.get(eid)
            if e is not None and memory_id not in e.facts:
                e.facts.add(memory_id)
                e.fact_sum = vector.copy() if e.fact_sum is None else e.fact_sum + vector

    def likeness(self, memory_id: str, eid: str) -> float | None:
        """How alike the fact is to the entity's other facts: the mean cosine of their embeddings.

        None when either has no embedding here, or the entity has fewer other facts than
        ``policy.alike_min_facts``.
        """
        e = self.entities.get(eid)
        vector = None if self.fact_vectors is None else self.fact_vectors.get(memory_id)
        if vector is None or e is None or e.fact_sum is None:
            return None
        others, count = e.fact_sum, len(e.facts)
        if memory_id in e.facts:
            others, count = others - vector, count - 1
        if count < max(1, self.policy.alike_min_facts):
            return None
        return float(vector @ others) / count

    def entity_likeness(self, eid: str, other: str) -> float | None:
        """How alike two entities' facts are: the mean cosine over every pair of their facts.

        For an entity of one fact, that fact's ``likeness`` to ``other``. None when either has
        no embedded fact here, or ``other`` fewer than ``policy.alike_min_facts``.
        """
        e, o = self.entities.get(eid), self.entities.get(other)
        if e is None or o is None or e.fact_sum is None or o.fact_sum is None:
            return None
        if len(o.facts) < max(1, self.policy.alike_min_facts):
            return None
        return float(e.fact_sum @ o.fact_sum) / (len(e.facts) * len(o.facts))

    def touch(
        self, eid: str, at: datetime, mention_type: str | None = None, *, guessed: bool = False
    ) -> None:
        """One more fact mentions ``eid`` (``mention_type``: the type that fact gave it)."""
        e = self.entities[eid]
        tclass = type_class(mention_type)
        if tclass:
            e.type_votes[tclass] += 1
            if e.type_guessed and not guessed:
                self._retype(e, mention_type)
        e.mentions += 1
        e.first, e.last = min(e.first, at), max(e.last, at)
        self.touched.add(eid)
        self._invalidate([eid])

    def _retype(self, e: WorkingEntity, mention_type: str | None) -> None:
        """A guessed type gives way to the first firm one a mention brings.

        "Thảo Nguyễn", read as a work of art in its first sentence, is a person once a "Dr.
        Nguyễn" joins it (a title says so): held as a work, its "Dr." would stay a word of the
        name and keep out the bare "Thảo". Other guesses do not move it: a bare name's type is
        the noisiest vote there is ("Margot", a place in three sentences of five).
        """
        e.type_guessed = False
        if type_class(mention_type) == type_class(e.type):
            return
        e.type = mention_type
        self._unindex(e.id)
        for key in e.names:
            self._index_name(e.id, key, e.type)
        self._invalidate([e.id])

    def cooccur(self, ids: Iterable[str], fixed: Iterable[str] = ()) -> None:
        """The given entities were named in one fact.

        ``fixed``: those of them whose co-occurrences in this fact are already counted (a
        settle replaying a stored fact): a pair of two fixed ones is not counted again, and an
        entity not in the working set is only a neighbour of the others.
        """
        distinct = sorted(set(ids))
        known = set(fixed)
        pairs = [
            (a, b)
            for a in distinct
            for b in distinct
            if a != b and a in self.entities and not (a in known and b in known)
        ]
        grown = {a for a, b in pairs if b not in self.entities[a].neighbours}
        for a, b in pairs:
            self.entities[a].neighbours[b] += 1
        self._invalidate(grown, degree_changed=True)
        self._invalidate({a for a, _ in pairs} - grown, entity=False)

    def merge(self, keep: str, gone: str, evidence: Evidence | None) -> None:
        """Fold ``gone`` into ``keep``: names, counts, time span and neighbours move."""
        self._invalidate([keep, gone], degree_changed=True)
        k, g = self.entities[keep], self.entities.pop(gone)
        self._unindex(gone)
        if _fuller(g.canonical, k.canonical):
            # "Sarah" absorbing "Sarah Chen" is called Sarah Chen.
            k.canonical = g.canonical
            self._series.pop(keep, None)
        for key, stated in g.names.items():
            k.names[key] = k.names.get(key, False) or stated
        for key in k.names:
            self._index_name(keep, key, k.type)
        k.mentions += g.mentions
        k.first, k.last = min(k.first, g.first), max(k.last, g.last)
        k.unloaded_degree += g.unloaded_degree
        k.decided_apart |= g.decided_apart
        k.qualifiers |= g.qualifiers
        k.topics |= g.topics
        if g.fact_sum is not None:
            both = k.facts & g.facts
            k.fact_sum = g.fact_sum if k.fact_sum is None else k.fact_sum + g.fact_sum
            if both and self.fact_vectors is not None:
                k.fact_sum = k.fact_sum - sum(self.fact_vectors[f] for f in sorted(both))
            k.facts |= g.facts
        for n, count in g.neighbours.items():
            other = self.entities.get(n)
            moved = other.neighbours.pop(gone, 0) if other else 0
            if n != keep:
                k.neighbours[n] += count
                if other is not None:
                    other.neighbours[keep] += moved
        k.neighbours.pop(gone, None)
        self._invalidate([keep], degree_changed=True)
        self.merged_into[gone] = keep
        self.touched.discard(gone)
        self.touched.add(keep)
        self.bank_entities -= 1
        self.merges.append(MergeRecord(keep, gone, evidence))

    def keep_apart(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Two entities one fact names side by side, by names that could be one's, are two.

        "Little Sofia showed Sofia Reyes her costume": whoever "Sofia" is elsewhere, the bank
        holds two people it may be, and the evidence, not the name, must say which. Held for
        this working set only (a settle reads it again from the facts), unlike a curator's
        verdict, which is stored.
        """
        for a, b in pairs:
            if a == b or a not in self.entities or b not in self.entities:
                continue
            self.entities[a].decided_apart.add(b)
            self.entities[b].decided_apart.add(a)
            self._invalidate([a, b])

    def review(self, record: ReviewRecord) -> None:
        """File a review for a human, once, naming at most ``policy.review_candidates`` rivals.

        Rivals and their evidence come best first; the strongest are kept.
        """
        limit = self.policy.review_candidates
        record = msgspec.structs.replace(
            record, others=record.others[:limit], evidence=record.evidence[:limit]
        )
        if record not in self._filed:
            self._filed.add(record)
            self.reviews.append(record)

    def final(self, eid: str) -> str:
        """The entity ``eid`` ended up in after merges."""
        while eid in self.merged_into:
            eid = self.merged_into[eid]
        return eid
