"""Decide a fact's mentions: which stored entity each names, or a new one (and a review).

``resolve_fact`` takes the mentions of one retain item and, per mention, the candidates the
store's indexes returned. It clusters the mentions that name one thing (stated aliases,
"Sarah" beside "Sarah Chen"), then decides group by group, most confident first, so that a
mention resolved with certainty becomes context for the ambiguous ones ("Alex" next to the
Sarah we know). Before a group is decided, the other groups count as context through every
entity they may turn out to be (their *plausible* candidates). The pair rules are in
``evidence``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

import msgspec

from app.domain.names import NameForm, name_form, name_key, person_title, type_class
from app.resolve.aliases import stated_alias_pairs
from app.resolve.cluster import IN_FACT_MIN_SCORE, cluster_names, short_forms_ahead
from app.resolve.evidence import (
    CandidateView,
    ContextRef,
    NameScreen,
    Subject,
    classify,
    may_relate,
    rank,
    score_candidate,
    screen_names,
    view,
    views_conflict,
)
from app.resolve.guards import name_conflict
from app.resolve.model import (
    Candidate,
    CreateAndReview,
    Decision,
    Evidence,
    FactMentions,
    GroupDecision,
    Mention,
    Merge,
)
from app.resolve.qualifiers import Qualifier, called_kin, qualifiers_in
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy, hub_degree, neighbour_weight


class _Group(msgspec.Struct, frozen=True):
    """Mentions of one fact that name one thing, with the union of their candidates."""

    mentions: tuple[int, ...]
    forms: tuple[NameForm, ...]
    stated: frozenset[str]
    type_class: str
    is_label: bool
    exact_only: bool
    views: tuple[CandidateView, ...]
    # Rules 2-4 of the group's names against each view, by id: the group is decided once per
    # commit of another group, with new context each time but the same names.
    screen: NameScreen = msgspec.field(default_factory=dict)
    # What the text states next to the group's names.
    qualifiers: tuple[Qualifier, ...] = ()
    topics: frozenset[str] = frozenset()
    likeness: Mapping[str, float] = msgspec.field(default_factory=dict)
    # Every typed mention of the group has a guessed type (NER): no type guard.
    type_guessed: bool = False
    # Entities of the fact's given mentions that name something else (not clustered with the
    # group): a fact that names "Halden" beside "Halden Solar Farm" names two things, even
    # when a settle decides the two in different passes.
    apart: frozenset[str] = frozenset()


def resolve_fact(
    fact: FactMentions,
    candidates: Sequence[Sequence[Candidate]],
    policy: ResolutionPolicy = DEFAULT_POLICY,
    *,
    expand: Callable[[str], Candidate] | None = None,
    fixed: Sequence[ContextRef] = (),
) -> tuple[GroupDecision, ...]:
    """Decide every mention of one fact; one ``GroupDecision`` per group, in mention order.

    ``candidates[i]`` are the index candidates of ``fact.mentions[i]`` and of its supplied
    aliases (exact key matches first, at most ``policy.max_candidates`` besides them). Their
    ``neighbours`` must include every neighbour that is itself a candidate of another mention
    of the fact, and every neighbour whose series key is that of another mention (see
    ``model.Candidate``).
    With ``expand``, candidates may come without their neighbours: ``expand(entity_id)``
    returns the candidate as described above, and is called only for those whose names pass
    the pair rules for a group (most index hits share a word and nothing more; building
    neighbour lists for them is most of the cost of a fact).
    ``fixed``: entities the fact names that are not being decided (a settle replays a fact
    whose other mentions stay where they are): context for every group.
    Mentions with an empty key are left out of every group. Deterministic: the same input
    gives the same output, whatever the order of the candidates.
    """
    if len(candidates) != len(fact.mentions):
        raise ValueError("candidates must hold one sequence per mention")
    hub = hub_degree(fact.bank_entities, policy)
    groups = _groups(fact, candidates, policy, hub, None if expand is None else _memo(expand))
    # What each group is to the others: its plausible entities until it is decided, then
    # what it was decided to be.
    refs = [_plausible(g, fact.at, policy, hub) for g in groups]
    decided: dict[int, Decision] = {}
    # A group's decision depends on the others only through their refs and the entities they
    # took among its own candidates; when a commit changed neither (the usual case: an exact
    # name whose one plausible entity it merged into), the last decision stands.
    last: dict[int, tuple[tuple[list[ContextRef], frozenset[str]], Decision]] = {}
    own_ids = [frozenset(v.candidate.entity_id for v in g.views) for g in groups]
    while len(decided) < len(groups):
        best: tuple[tuple[int, float, int], int, Decision] | None = None
        taken = frozenset(d.entity_id for d in decided.values() if isinstance(d, Merge))
        for gi, group in enumerate(groups):
            if gi in decided:
                continue
            inputs = (
                [*(r for hi, r in enumerate(refs) if hi != gi), *fixed],
                (taken | group.apart) & own_ids[gi],
            )
            previous = last.get(gi)
            if previous is not None and previous[0] == inputs:
                decision = previous[1]
            else:
                decision = _decide_group(group, *inputs, fact.at, policy, hub)
                last[gi] = (inputs, decision)
            key = _confidence(decision, gi)
            if best is None or key > best[0]:
                best = (key, gi, decision)
        assert best is not None
        _, chosen, decision = best
        decided[chosen] = decision
        group = groups[chosen]
        refs[chosen] = (
            _committed_ref(group, decision.entity_id, refs[chosen], policy, hub)
            if isinstance(decision, Merge)
            # A new entity: nothing to share yet, but its series may have siblings.
            else ContextRef((), (), _series(group))
        )
    return tuple(
        GroupDecision(
            mentions=g.mentions,
            names=tuple(dict.fromkeys(f.key for f in g.forms)),
            stated_names=tuple(sorted(g.stated)),
            decision=decided[gi],
            qualifiers=g.qualifiers,
        )
        for gi, g in enumerate(groups)
    )


def _groups(
    fact: FactMentions,
    candidates: Sequence[Sequence[Candidate]],
    policy: ResolutionPolicy,
    hub: float,
    expand: Callable[[str], Candidate] | None,
) -> list[_Group]:
    mentions = fact.mentions
    # The given mentions are clustered with the live ones (to know which name the same thing)
    # but form no group: they are decided elsewhere.
    everyone = (*mentions, *fact.given)
    keys = [name_key(m.text) for m in everyone]
    live = [i for i, k in enumerate(keys) if k]
    forms = [name_form(keys[i], type_class(everyone[i].type)) for i in live]
    stated_pairs = stated_alias_pairs(fact.content, [everyone[i].text for i in live])
    # Labels and exact-only mentions cluster only with their own kind.
    kinds = [(everyone[i].is_label, everyone[i].resolve) for i in live]
    stated_ok = [(a, b) for a, b in stated_pairs if kinds[a] == kinds[b]]
    guessed = [c for c, i in enumerate(live) if everyone[i].type_guessed]
    # Read with the given mentions too, then kept for the live ones: what follows a name
    # must not depend on which of the fact's mentions are decided here.
    read = [*(everyone[i] for i in live), *fact.later]
    said = qualifiers_in(fact.content, [m.text for m in read], [m.type for m in read])
    relatives = [c for c in range(len(live)) if called_kin(said[c])]
    clusters = cluster_names(
        forms,
        stated=stated_ok,
        guessed=guessed,
        relatives=relatives,
        ahead=short_forms_ahead(fact.content, [everyone[i].text for i in live], forms),
        known=_known_as(forms, live, candidates),
        min_score=IN_FACT_MIN_SCORE,
    )
    given_at = {
        p: fact.given_ids[i - len(mentions)] for p, i in enumerate(live) if i >= len(mentions)
    }
    groups: list[_Group] = []
    for whole in _split_kinds(clusters, kinds):
        cluster = tuple(c for c in whole if c not in given_at)
        if not cluster:
            continue
        same = {given_at[c] for c in whole if c in given_at}
        apart = frozenset(given_at.values()) - same
        idx = tuple(live[c] for c in cluster)
        seen: dict[str, CandidateView] = {}
        for i in idx:
            for cand in candidates[i]:
                if cand.entity_id not in seen:
                    seen[cand.entity_id] = view(cand, policy, hub)
        # A given mention that names the same thing lends the group its names, and its entity
        # is a candidate: "Bear" decided after "Imre Halasz, whom the yard calls Bear".
        if expand is not None:
            for entity_id in sorted(same - seen.keys() - {""}):
                seen[entity_id] = view(expand(entity_id), policy, hub)
        stated = {forms[x].key for a, b in stated_ok if a in whole and b in whole for x in (a, b)}
        by_key = {forms[c].key: forms[c] for c in whole}
        for c in cluster:
            for alias in _supplied_aliases(mentions[live[c]], forms[c]):
                by_key.setdefault(alias.key, alias)
                stated.update((forms[c].key, alias.key))
        group_forms = tuple(by_key.values())
        group = _Group(
            mentions=idx,
            forms=group_forms,
            stated=frozenset(stated),
            type_class=next((f.type_class for f in group_forms if f.type_class), ""),
            is_label=mentions[idx[0]].is_label,
            exact_only=not mentions[idx[0]].resolve,
            views=tuple(seen.values()),
            qualifiers=tuple(
                sorted({q for c in cluster for q in _stated(said[c], everyone[live[c]])})
            ),
            topics=fact.topics | {t for i in idx if (t := _title(fact, i))},
            likeness=fact.likeness,
            type_guessed=all(mentions[i].type_guessed for i in idx if mentions[i].type),
            apart=apart,
        )
        names_only = _subject(group, fact.at, (), frozenset(), hub)
        screen = screen_names(names_only, group.views)
        views = group.views
        if expand is not None:
            # Neighbours and mass are read only for a candidate that passes rules 2-4 and has
            # a name relation (``evidence.score_candidate``); any other is rejected on names.
            views = tuple(
                view(expand(v.candidate.entity_id), policy, hub)
                if may_relate(names_only, v, policy, screen)
                else v
                for v in views
            )
        groups.append(msgspec.structs.replace(group, views=views, screen=screen))
    return groups


def _known_as(
    forms: Sequence[NameForm], live: Sequence[int], candidates: Sequence[Sequence[Candidate]]
) -> dict[int, list[tuple[NameForm, ...]]]:
    """Per titled live mention, the names of each candidate already called by it word for word.

    Only titled names are looked up: ``cluster.cluster_names`` reads this for them alone.
    """
    known: dict[int, list[tuple[NameForm, ...]]] = {}
    for c, i in enumerate(live):
        if person_title(forms[c]) is None:
            continue
        for cand in candidates[i] if i < len(candidates) else ():
            if forms[c].key in cand.names:
                tclass = type_class(cand.type)
                known.setdefault(c, []).append(tuple(name_form(k, tclass) for k in cand.names))
    return known


def _stated(said: Sequence[Qualifier], mention: Mention) -> tuple[Qualifier, ...]:
    """What the text says next to a mention, and the company a settle found its fact keeps."""
    return (*said, mention.company) if mention.company is not None else tuple(said)


def _memo(expand: Callable[[str], Candidate]) -> Callable[[str], Candidate]:
    """``expand`` called at most once per id (a candidate of two groups is built once)."""
    built: dict[str, Candidate] = {}

    def cached(entity_id: str) -> Candidate:
        if entity_id not in built:
            built[entity_id] = expand(entity_id)
        return built[entity_id]

    return cached


def _supplied_aliases(mention: Mention, own: NameForm) -> list[NameForm]:
    """The aliases a caller or extractor supplied for a mention, minus those a guard refuses.

    A supplied alias is a stated one: it skips the token guard, never the number guard
    where both names have numbers ("Ocean Probe 1" may be "OP-1", not "OP-2").
    """
    out = []
    for text in mention.aliases:
        alias = name_form(name_key(text), own.type_class)
        if alias.key and alias.key != own.key and name_conflict(own, alias, stated=True) is None:
            out.append(alias)
    return out


def _split_kinds(
    clusters: list[tuple[int, ...]],
    kinds: list[tuple[bool, bool]],
) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for cluster in clusters:
        by_kind: dict[tuple[bool, bool], list[int]] = {}
        for c in cluster:
            by_kind.setdefault(kinds[c], []).append(c)
        out.extend(tuple(v) for v in by_kind.values())
    return sorted(out)


def _subject(
    group: _Group,
    at: datetime,
    context: tuple[ContextRef, ...],
    exclude: frozenset[str],
    hub: float,
) -> Subject:
    return Subject(
        names=group.forms,
        stated=group.stated,
        type_class=group.type_class,
        first=at,
        last=at,
        context=context,
        context_mass=sum(r.mass for r in context),
        exclude=exclude,
        is_label=group.is_label,
        exact_only=group.exact_only,
        hub=hub,
        qualifiers=group.qualifiers,
        topics=group.topics,
        likeness=group.likeness,
        type_guessed=group.type_guessed,
    )


def _series(group: _Group) -> str:
    return next((f.series for f in group.forms if f.series), "")


def _plausible(
    group: _Group,
    at: datetime,
    policy: ResolutionPolicy,
    hub: float,
) -> ContextRef:
    """The entities a group may turn out to be, as a context reference for the others.

    A group with no plausible entity (a new name) still carries its series key, so that
    "Sprint 16" can be a sibling of a candidate's "Sprint 14".
    """
    subject = _subject(group, at, (), frozenset(), hub)
    ids: list[str] = []
    weights: list[float] = []
    for cand in group.views:
        result = score_candidate(subject, cand, policy, screen=group.screen)
        if isinstance(result, Evidence) and result.name.score >= policy.plausible_name:
            ids.append(cand.candidate.entity_id)
            weights.append(neighbour_weight(cand.candidate.degree, policy, hub))
    return ContextRef(tuple(ids), tuple(weights), _series(group))


def _decide_group(
    group: _Group,
    refs: Sequence[ContextRef],
    taken: frozenset[str],
    at: datetime,
    policy: ResolutionPolicy,
    hub: float,
) -> Decision:
    """One group's decision with the other groups as context; ``taken``: entities they took."""
    subject = _subject(group, at, tuple(refs), taken, hub)
    views = {v.candidate.entity_id: v for v in group.views}
    ranked, rejected = rank(subject, views.values(), policy, group.screen)
    return classify(subject, ranked, rejected, views, policy)


def _committed_ref(
    group: _Group, chosen: str, plausible: ContextRef, policy: ResolutionPolicy, hub: float
) -> ContextRef:
    """Context reference of a group merged into ``chosen``.

    The chosen entity, plus the group's other plausible entities that are not its namesakes:
    those may be the same thing stored twice (an earlier "apart"), and this fact links them.
    Namesakes of the chosen entity ("Alex Moreno" when "Alex" went to Alex Kim) drop out.
    """
    views = {v.candidate.entity_id: v for v in group.views}
    chosen_view = views[chosen]
    ids = [chosen]
    weights = [neighbour_weight(chosen_view.candidate.degree, policy, hub)]
    for i, w in zip(plausible.ids, plausible.weights, strict=True):
        if i != chosen and not views_conflict(chosen_view, views[i]):
            ids.append(i)
            weights.append(w)
    return ContextRef(tuple(ids), tuple(weights), _series(group))


def _confidence(decision: Decision, gi: int) -> tuple[int, float, int]:
    """Commit order: merges before reviews before creates, higher score first, then index."""
    if isinstance(decision, Merge):
        return (2, decision.score, -gi)
    if isinstance(decision, CreateAndReview):
        return (1, decision.evidence[0].score, -gi)
    return (0, 0.0, -gi)


def _title(fact: FactMentions, i: int) -> str | None:
    """The title mention ``i`` of the fact opens with, where topics are read."""
    return fact.titles[i] if i < len(fact.titles) else None
