"""Cluster surface variants of one name before anything is written.

Within one fact, "Dr. Priya Raman … Priya" or "海洋探测器1号（简称海探1）" name one thing; within
one retain batch, two items that both introduce "Priya Raman" must create one entity, not two.
Both use the same guards and name relation as the resolver:

- a pair links when no guard objects and its name relation scores at least ``min_score`` (or
  the text states the alias);
- a name that links to two names that conflict with each other ("Alex" next to "Alex Kim" and
  "Alex Moreno") is ambiguous and stays alone;
- groups grow by the strongest links first and never take in a name that conflicts with a
  member (so no chain "Alex Kim" – "Alex" – "Alex Moreno");
- a title and surname the bank already knows, word for word, as the name of someone whose
  names conflict with the one beside it ("Dr. Chen" known as Dr. Lihua Chen's, next to an
  untitled "Kevin Chen") is as ambiguous as a name linked to two conflicting names here;
- a short form written only before its full form in one sentence ("little Sofia showed Sofia
  Reyes her costume") is someone else: a name refers back to a name given, not ahead
  (``written_ahead``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from app.domain.names import NameForm, name_form, name_key, person_title, type_class
from app.resolve.guards import name_conflict, pair_conflict
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy, name_relation

# Inside one fact a short form next to its full form is nearly always the same thing: partial
# person names ("Sarah" beside "Sarah Chen") link, a place inside a venue's name
# ("Seattle" beside "Town Hall Seattle", 0.67) does not.
IN_FACT_MIN_SCORE = 0.7
# Across the items of one batch only near-identical names link (exact, same form, initials).
IN_BATCH_MIN_SCORE = 0.9


def cluster_names(
    forms: Sequence[NameForm],
    *,
    stated: Iterable[tuple[int, int]] = (),
    guessed: Collection[int] = (),
    relatives: Collection[int] = (),
    ahead: Collection[tuple[int, int]] = (),
    known: Mapping[int, Sequence[tuple[NameForm, ...]]] | None = None,
    min_score: float = IN_FACT_MIN_SCORE,
    policy: ResolutionPolicy = DEFAULT_POLICY,
) -> list[tuple[int, ...]]:
    """Group the indexes of ``forms`` that name the same thing; groups in first-index order.

    Each form carries its own type class. ``stated`` lists index pairs that a text states to
    be aliases (see ``aliases.stated_alias_pairs``). ``guessed``: the indexes whose type a local
    model guessed; such a type does not refuse a stated pair ("Oluwaseun Adeyemi, whom the
    kids call Seun", where NER read "Seun" as a place), though it still keeps apart names the
    text does not say are one ("Paris Hilton" and the "Paris" she flew to). ``relatives``: the
    indexes the text calls someone's kin ("her brother, Magnus Solberg"); such a name links
    only to a name the text states it is: kin named beside "Captain Solberg" is the family the
    surname is shared with, not the captain. ``ahead``: (i, j) when the text writes the
    shorter form ``i`` only before its longer form ``j``, in one sentence
    (``short_forms_ahead``); it refers to someone else, and links to ``j`` only when the text
    states it is that name. ``known``: per index, the names of each stored entity already
    called by that form's name, word for word.
    """
    n = len(forms)
    stated_pairs = {frozenset(p) for p in stated if p[0] != p[1]}
    firm = frozenset(range(n)) - frozenset(guessed)
    # Pairs that link only when the text states they are one: kin beside another name of its
    # fact, and a short form written ahead of its full form.
    stated_only = {frozenset((k, j)) for k in relatives for j in range(n) if j != k}
    stated_only |= {frozenset(p) for p in ahead if p[0] != p[1]}
    conflicts = [
        [_conflict(forms, i, j, stated_pairs, firm, stated_only) for j in range(n)]
        for i in range(n)
    ]
    links: list[tuple[float, int, int]] = []
    for i in range(n):
        for j in range(i + 1, n):
            if conflicts[i][j]:
                continue
            if frozenset((i, j)) in stated_pairs:
                links.append((policy.stated_name, i, j))
                continue
            match = name_relation(forms[i], forms[j], policy)
            if match is not None and match.score >= min_score:
                links.append((match.score, i, j))
    partners: dict[int, set[int]] = {i: set() for i in range(n)}
    for _, i, j in links:
        partners[i].add(j)
        partners[j].add(i)
    ambiguous = {
        i
        for i, ps in partners.items()
        if any(conflicts[a][b] for a in ps for b in ps if a < b)
        or any(_titled_elsewhere(forms[i], forms[p], (known or {}).get(i, ())) for p in ps)
    }
    group_of = list(range(n))
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    for _, i, j in sorted(links, key=lambda link: (-link[0], link[1], link[2])):
        if i in ambiguous or j in ambiguous:
            continue
        gi, gj = group_of[i], group_of[j]
        if gi == gj or any(conflicts[a][b] for a in members[gi] for b in members[gj]):
            continue
        keep, gone = min(gi, gj), max(gi, gj)
        for m in members.pop(gone):
            group_of[m] = keep
            members[keep].append(m)
    return sorted(tuple(sorted(ms)) for ms in members.values())


def _conflict(
    forms: Sequence[NameForm],
    i: int,
    j: int,
    stated: set[frozenset[int]],
    firm: frozenset[int],
    stated_only: set[frozenset[int]],
) -> bool:
    if i == j:
        return False
    pair = frozenset((i, j))
    if pair in stated_only and pair not in stated:
        return True  # kin, or a short form ahead of its full form (``cluster_names``)
    if pair in stated and not pair <= firm:
        return name_conflict(forms[i], forms[j], stated=True) is not None
    return pair_conflict(forms[i], forms[j], stated=pair in stated) is not None


def could_be_one(a: NameForm, b: NameForm, policy: ResolutionPolicy = DEFAULT_POLICY) -> bool:
    """Whether two names of one fact would link on their names alone (no guard, a relation)."""
    if pair_conflict(a, b) is not None:
        return False
    match = name_relation(a, b, policy)
    return match is not None and match.score >= IN_FACT_MIN_SCORE


def short_forms_ahead(
    content: str, surfaces: Sequence[str], forms: Sequence[NameForm]
) -> set[tuple[int, int]]:
    """(i, j) when a shorter form ``i`` is written only before the longer ``j`` (``written_ahead``).

    "Little Sofia showed Sofia Reyes her costume": a name refers back to a name given, not
    ahead, so the shorter is someone else unless the text states otherwise. Not when the
    longer is written in capitals ("Katrin got a letter addressed to KATRIN MÜLLER"): that is
    the name as a letter, a ticket or a label prints it, quoted, not a second holder met.
    """
    return {
        (i, j)
        for i, j in written_ahead(content, surfaces)
        if len(forms[i].words) < len(forms[j].words) and not _in_capitals(surfaces[j])
    }


def _in_capitals(surface: str) -> bool:
    """True when every letter of a name of two words or more is a capital ("KATRIN MÜLLER")."""
    letters = [c for c in surface if c.isalpha()]
    return len(surface.split()) >= 2 and bool(letters) and all(c.isupper() for c in letters)


def written_ahead(content: str, surfaces: Sequence[str]) -> set[tuple[int, int]]:
    """(i, j) when the text writes name ``i`` only before name ``j``, in the sentence of ``j``.

    Only whole-word writings of ``i`` count, and not those inside a writing of ``j`` ("Sofia"
    inside "Sofia Reyes"). A name written nowhere, or also after ``j``, or in another sentence
    than ``j``'s first writing, gives no pair: the text does not say which way it points.
    """
    spans = [_writings(content, s) for s in surfaces]
    out: set[tuple[int, int]] = set()
    for j, later in enumerate(spans):
        if not later:
            continue
        start = later[0][0]
        for i, earlier in enumerate(spans):
            if i == j:
                continue
            alone = [(a, b) for a, b in earlier if not any(c <= a and b <= d for c, d in later)]
            if (
                alone
                and alone[-1][1] <= start
                and _SENTENCE_END.search(content, alone[-1][1], start) is None
            ):
                out.add((i, j))
    return out


def _writings(content: str, surface: str) -> list[tuple[int, int]]:
    """Where the text writes ``surface`` as whole words, in any case."""
    if not surface.strip():
        return []
    pattern = re.compile(r"(?<!\w)" + re.escape(surface.strip()) + r"(?!\w)", re.IGNORECASE)
    return [m.span() for m in pattern.finditer(content)]


# What ends a sentence between two names.
_SENTENCE_END = re.compile(r"[.!?;\n]")


def _titled_elsewhere(
    short: NameForm, partner: NameForm, known: Sequence[tuple[NameForm, ...]]
) -> bool:
    """Whether a titled short form is already another person's name than its partner's.

    The title is what the partner lacks: "Kevin Chen … Dr. Chen" in one fact reads as one
    person only if nothing else goes by "Dr. Chen"; when the bank calls Dr. Lihua Chen so,
    the fact may name two Chens, and the bank, not the sentence, decides. A partner written
    with the same title ("Dr. Kevin Chen") still links, as do bare first names ("Sarah"
    beside "Sarah Kim"), which refer back to the name just given.
    """
    title = person_title(short)
    if title is None or person_title(partner) == title:
        return False
    return any(
        partner.key not in {f.key for f in names}
        and any(pair_conflict(partner, f) is not None for f in names)
        for names in known
    )


def cluster_new_names(
    names: Sequence[tuple[str, str | None]],
    policy: ResolutionPolicy = DEFAULT_POLICY,
) -> list[tuple[int, ...]]:
    """Group the new names of one retain batch that must become one entity.

    ``names`` are (surface text, type) of the groups that ``decide.resolve_fact`` decided to
    create, across the items of the batch; only near-identical names link
    (``IN_BATCH_MIN_SCORE``: exact, same form, initials), so "Dr. Priya Raman" in one item and
    "Priya Raman" in another create one entity, while a bare "Priya" elsewhere does not join.
    Empty names stay alone.
    """
    forms = [name_form(name_key(text), type_class(t)) for text, t in names]
    live = [i for i, f in enumerate(forms) if f.key]
    groups = cluster_names([forms[i] for i in live], min_score=IN_BATCH_MIN_SCORE, policy=policy)
    out = [tuple(live[j] for j in g) for g in groups]
    out.extend((i,) for i, f in enumerate(forms) if not f.key)
    return sorted(out)
