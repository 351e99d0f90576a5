"""Namesakes told apart by the company their facts keep.

Two people who share a full name are often written about with nothing next to the name to
tell them apart: "Wen Harlow made the basses sing the hymn again", "Wen Harlow found a
cracked coolant line". What tells them apart is what their facts are about. In a settle's
block, each fact that writes a person's full name that ``2 * MIN_GROUP`` facts of the block or
more write is embedded with that name masked (``company_texts``). Linking the facts that are
alike, from the lowest level of ``LINK_LEVELS`` up, the first level at which they fall into
two groups or more of ``MIN_GROUP`` facts each is where the name may be held by namesakes;
groups that are still alike on average are one person's (above ``APART_SIMILARITY``, and
above ``APART_SHARE`` of how alike each group's own facts are), and those left apart are
namesakes (``company_groups``). Each group's mentions carry a ``company`` qualifier of their
own, which conflicts with the other groups', and the name's mentions in no group are decided
last, as plain mentions of namesakes are (``settle.namesakes_decided_last``).

One person written about in two settings (at work, at home) falls into two groups at some
level too, but the two stay alike on average, in how the person is written about; a person's
odd fact out is in no group and splits nothing. Only people are read this way: a place or an
organisation is where unrelated people do unrelated things, and its facts rarely hold together
at all.

A name's company is the sentences it is written in, each counted once. A fact that carries
the name without writing it (an entity the caller supplied joins every fact of its item,
``retain.pipeline``) says nothing about its holder and is not grouped. A statement made again
(a sentence retained twice, a message an agent repeats) is one piece of evidence however often
it is stored, and so is a set sentence filled with other names ("X met A in B", "X met C in
D"), one way of writing: the facts of one form (``_form``) are read once when grouping, and
each takes the label its statement's group gets. Copies, and one form's facts, are as alike as
facts can be; counted one by one, three of them would make a "namesake's" group of one
sentence. And groups whose facts write the same other people, places or organisations
(``SHARED_COMPANY`` of them, the bank's hubs aside) keep one person's company, however
differently they are written: they are joined.

A short name is read the same way against the one full name it shortens (``_bare_namesakes``):
a bare given name against the full name that begins with it, a title and a surname ("Dr.
Barry") against the one that ends with it. "Mats" is "Mats Rønning" unless a group of its
facts is both written apart from his and keeps none of his company. Chat turns are left out
of that reading: what someone says in a chat is written unlike a note about them, whoever they
are.

Pure: the groups are a function of the name's facts and their embeddings, whatever order the
facts came in (the embedding is the caller's: the store's model).
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from app.domain.facts import SPEAKER_PREFIX
from app.domain.names import (
    ADDRESS_TITLES,
    KIN_TITLES,
    PERSON_TITLES,
    fold,
    name_key,
    name_tokens,
    suffixed_honorific,
    type_class,
)
from app.resolve.linked import Linked
from app.resolve.qualifiers import COMPANY, Qualifier

# Statements (facts, a copy counted once) a group must hold, each side, for a name to be read
# as held by namesakes.
MIN_GROUP = 3
# The levels of cosine similarity (all-MiniLM-L6-v2, the name masked) at which facts are
# linked, lowest first: the range in which one person's facts and two namesakes' are alike on
# the development corpora.
LINK_LEVELS = tuple(round(0.30 + 0.01 * step, 2) for step in range(31))
# Two groups are two people only when their facts are on average at most this alike: one
# person's two settings still share how they are written about. On the development corpora,
# two namesakes' groups are 0.05-0.16 alike on average (a few 0.19-0.26), while one person's
# facts, cut into two groups, are 0.17-0.31 alike (one 0.06).
APART_SIMILARITY = 0.16
# Nor are they one person's when they are alike at most half as much as each group's own facts
# are among themselves: two namesakes in one small world (a vet and a reporter in one town)
# are written about alike above ``APART_SIMILARITY``, yet each one's facts hold together twice
# as tightly. (0.6 lost a right merge on the development corpora and split nothing more.)
APART_SHARE = 0.5
# Groups whose facts write this many of the same other names are one person's company.
SHARED_COMPANY = 2
# Statements a group of a short name's facts ("Mats", "Dr. Barry") must hold to be another
# holder's than the full name's (``_bare_namesakes``): one more than ``MIN_GROUP``, since a
# short name is the least a text says of whom it means, and a person's odd facts make a group
# of three.
MIN_BARE_GROUP = MIN_GROUP + 1
# What the name is replaced by: the facts are compared on what they say, not on the name.
MASK = "someone"

# (fact id, text, mentions as (text, type)) of a block's facts.
FactNames = tuple[str, str, Sequence[tuple[str, str | None]]]
Slot = tuple[str, int]


def company_texts(facts: Sequence[FactNames], shared: Collection[str] = ()) -> dict[Slot, str]:
    """(fact id, mention index) → the fact's text with that name masked, for the names to group.

    ``facts``: each fact's id, text and mentions (text, type). Only full names (two words or
    more) that ``2 * MIN_GROUP`` facts or more write are grouped: of people, and of
    organisations the text says are shared (``shared``: name keys, ``shared_names``); and a
    person's short name with the one full name it shortens (``_short_names``).
    """
    return _masked(facts, _read_slots(_slots_by_name(facts, shared), _short_names(facts)))


def company_groups(
    facts: Sequence[FactNames],
    vectors: Mapping[Slot, npt.ArrayLike],
    shared: Collection[str] = (),
    beside: Mapping[str, Collection[str]] | None = None,
) -> dict[Slot, Qualifier]:
    """(fact id, mention index) → its ``company`` qualifier, for names held by namesakes.

    ``facts`` as ``company_texts`` reads them; ``vectors``: the embedding of each text it gave
    (a slot without one is linked to nothing). ``shared``: the name keys the text says more
    than one holds (``shared_names``): their facts are parted by the average-linkage tree
    (``_parted``), without asking whether the parts are apart enough. ``beside``: fact id →
    the name keys of the other things the fact names, hubs left out; groups of a name not said
    to be shared that write ``SHARED_COMPANY`` of the same ones are one person's. Then each
    short name (a bare given name, a title and a surname) is read against the one full name it
    shortens (``_bare_namesakes``), unless a form of that name is itself parted.
    """
    by_name = _slots_by_name(facts, shared)
    short = _short_names(facts)
    texts = _masked(facts, _read_slots(by_name, short))
    out: dict[Slot, Qualifier] = {}
    for key, slots in sorted(by_name.items()):
        copies = _statements([s for s in slots if s in vectors], texts)
        # Each statement is read once, by the embedding of its first copy.
        firsts = {copy[0]: copy for copy in copies}
        parts = _parted if key in shared else _namesakes
        groups = parts(sorted(firsts), vectors)
        if beside is not None and key not in shared:
            groups = _join_by_company(groups, firsts, key, beside)
        for group in groups:
            members = sorted(slot for first in group for slot in firsts[first])
            # Named by its first fact: the same group, the same key, whatever the order.
            first_fact = members[0][0]
            label = Qualifier(
                kind=COMPANY, key=f"{key}#{first_fact}", text=f"{len(group)} facts alike"
            )
            for slot in members:
                out[slot] = label
    for key, (full, bare) in sorted(short.items()):
        if beside is None or any(slot in out for slot in (*full, *bare)):
            continue  # no company to read, or a form of the name is itself held by namesakes
        for group in _bare_namesakes(key, full, bare, vectors, texts, beside):
            first_fact = group[0][0]
            label = Qualifier(kind=COMPANY, key=f"{key}#{first_fact}", text=f"{len(group)} facts")
            for slot in group:
                out[slot] = label
    return out


def _bare_namesakes(
    key: str,
    full: Sequence[Slot],
    bare: Sequence[Slot],
    vectors: Mapping[Slot, npt.ArrayLike],
    texts: Mapping[Slot, str],
    beside: Mapping[str, Collection[str]],
) -> list[list[Slot]]:
    """A short name's facts parted when some of its bare uses are another holder's.

    "Mats" in a bank that knows one "Mats Rønning": the bare name is his unless a group of its
    facts keeps apart from his. The facts, full and bare, are cut at the average-linkage tree's
    top (``_average_cut``); the groups that hold a full name's fact are his (the anchor). A
    group of bare facts only is another holder's when it holds ``MIN_BARE_GROUP`` statements,
    is alike to the anchor at most ``APART_SHARE`` of how alike each side is within, and none
    of its facts writes another name the anchor's facts write: both what the facts say and the
    company they keep put it apart. Returns the anchor's slots, then each such group's; none
    when no group is apart.
    """
    copies = _statements([s for s in (*full, *bare) if s in vectors], texts)
    firsts = {copy[0]: copy for copy in copies}
    ordered = sorted(firsts)
    if len(ordered) < MIN_BARE_GROUP + 2:
        return []
    similarity = _similarity(ordered, vectors)
    named, word = set(full), _short_word(key)

    def slots(group: Sequence[int]) -> list[Slot]:
        return sorted(slot for x in group for slot in firsts[ordered[x]])

    def company(group: Sequence[int]) -> set[str]:
        # Other names than this one: a name with its word is one of the anchor's own forms.
        written = {name for slot in slots(group) for name in beside.get(slot[0], ())}
        return {name for name in written if word not in fold(name).split()}

    groups = _average_cut(similarity)
    anchor = sorted(x for g in groups if named & set(slots(g)) for x in g)
    if len(anchor) < 2:
        return []
    in_anchor, ours, anchor_within = set(anchor), company(anchor), _within(anchor, similarity)
    apart: list[list[int]] = []
    for group in groups:
        if len(group) < MIN_BARE_GROUP or in_anchor.intersection(group):
            continue
        between = float(similarity[np.ix_(group, anchor)].mean())
        within = (_within(group, similarity) + anchor_within) / 2
        if between <= APART_SHARE * within and not company(group) & ours:
            apart.append(group)
    if not apart:
        return []
    return [slots(part) for part in (anchor, *apart)]


def _join_by_company(
    groups: list[list[Slot]],
    copies: Mapping[Slot, Sequence[Slot]],
    key: str,
    beside: Mapping[str, Collection[str]],
) -> list[list[Slot]]:
    """Join groups whose facts write ``SHARED_COMPANY`` or more of the same other names."""
    names = [
        {name for first in group for slot in copies[first] for name in beside.get(slot[0], ())}
        - {key}
        for group in groups
    ]
    linked = Linked(len(groups))
    for a, b in itertools.combinations(range(len(groups)), 2):
        if len(names[a] & names[b]) >= SHARED_COMPANY:
            linked.join(a, b)
    out = sorted(sorted(slot for i in part for slot in groups[i]) for part in linked.parts())
    return out if len(out) >= 2 else []


def _read_slots(
    by_name: Mapping[str, Sequence[Slot]], short: Mapping[str, tuple[list[Slot], list[Slot]]]
) -> dict[str, Sequence[Slot]]:
    """Every slot whose text is compared: full names' (``_slots_by_name``), short names'."""
    return {**by_name, **{k: [*full, *bare] for k, (full, bare) in short.items()}}


def _masked(facts: Sequence[FactNames], by_name: Mapping[str, Sequence[Slot]]) -> dict[Slot, str]:
    """Each slot's fact text with its name masked, wherever and in whatever case it is written."""
    content = {fid: text for fid, text, _ in facts}
    surface = {(fid, i): mentions[i][0] for fid, _, mentions in facts for i in range(len(mentions))}
    return {
        slot: _written_at(surface[slot]).sub(MASK, content[slot[0]])
        for slots in by_name.values()
        for slot in slots
    }


def _statements(slots: Sequence[Slot], texts: Mapping[Slot, str]) -> list[list[Slot]]:
    """The slots grouped by their form (``_form``), each group sorted: one statement, its copies."""
    by_text: defaultdict[str, list[Slot]] = defaultdict(list)
    for slot in sorted(slots):
        by_text[_form(texts[slot])].append(slot)
    return list(by_text.values())


def _namesakes(slots: Sequence[Slot], vectors: Mapping[Slot, npt.ArrayLike]) -> list[list[Slot]]:
    """The groups of facts that are each one namesake's (none: one person, or no telling).

    At the lowest link level where the facts fall into two groups or more of ``MIN_GROUP``
    facts (a cut of the single-linkage tree), groups that are still alike on average are one
    person's and are joined (``_join_alike``); two or more left apart are namesakes. The facts
    in no group are not labelled. The tree is built once, from the most alike pair down (a
    name's facts in a block are at most a few hundred).
    """
    ordered = sorted(slots)
    if len(ordered) < 2 * MIN_GROUP:
        return []
    similarity = _similarity(ordered, vectors)
    first, second = np.triu_indices(len(ordered), 1)
    pairs = similarity[first, second]
    by_likeness = np.argsort(-pairs, kind="stable")
    linked = Linked(len(ordered))
    found: list[list[int]] = []
    edge = 0
    for level in reversed(LINK_LEVELS):
        while edge < len(by_likeness) and pairs[by_likeness[edge]] >= level:
            linked.join(int(first[by_likeness[edge]]), int(second[by_likeness[edge]]))
            edge += 1
        big = sorted(g for g in linked.parts() if len(g) >= MIN_GROUP)
        if len(big) >= 2:
            joined = _join_alike(big, similarity)
            if len(joined) >= 2:
                found = joined  # the lowest level that parts them is the last one seen
    return [[ordered[x] for x in group] for group in found]


def _parted(slots: Sequence[Slot], vectors: Mapping[Slot, npt.ArrayLike]) -> list[list[Slot]]:
    """The groups of facts of a name the text says is shared, cut from the average-linkage tree.

    Joining the most alike groups first, on their mean likeness (not on their most alike pair,
    which one common word makes high), the groups are cut at the node of the tree that joins
    two groups of ``MIN_GROUP`` facts or more, while no other group is as large, whose smaller
    group is largest; smaller ones are left unlabelled. The tree's top is no cut for two
    holders written about alike (two people of one trade): they join before a few odd facts
    that are alike to nothing else do, and the top parts the odd facts from both. Whether two
    namesakes exist is what the text said, so the groups are not asked to be apart
    (``APART_SIMILARITY``).
    """
    ordered = sorted(slots)
    if len(ordered) < 2 * MIN_GROUP:
        return []
    cut = _average_cut(_similarity(ordered, vectors), balanced=True)
    found = [g for g in cut if len(g) >= MIN_GROUP]
    return [[ordered[x] for x in group] for group in found]


def _average_cut(similarity: npt.NDArray[np.float64], *, balanced: bool = False) -> list[list[int]]:
    """Every group of the last state of the average-linkage tree with two of ``MIN_GROUP``.

    Joining the most alike groups first, on their mean likeness. Sorted; none when no state
    has two groups of ``MIN_GROUP`` items. ``balanced``: of the states whose only two such
    groups are the next to be joined (a node of the tree with two children of ``MIN_GROUP``),
    the last one whose smaller group is largest. There is one whenever some state has two such
    groups: a group that large only grows, so the last join of two of them is made when they
    are the only two.
    """
    members: list[list[int]] = [[x] for x in range(len(similarity))]
    between = similarity.copy()
    np.fill_diagonal(between, -np.inf)
    found: list[list[int]] = []
    best = 0
    while len(members) > 1:
        flat = int(np.argmax(between))
        a, b = sorted(divmod(flat, len(members)))
        size_a, size_b = len(members[a]), len(members[b])
        big = sum(len(g) >= MIN_GROUP for g in members)
        if balanced:
            if big == 2 and min(size_a, size_b) >= max(MIN_GROUP, best):
                found, best = sorted(sorted(g) for g in members), min(size_a, size_b)
        elif big >= 2:
            found = sorted(sorted(g) for g in members)
        # Lance-Williams: the mean likeness of the joined group to each other group.
        merged = (size_a * between[a] + size_b * between[b]) / (size_a + size_b)
        between[a], between[:, a] = merged, merged
        between[a, a] = -np.inf
        between = np.delete(np.delete(between, b, axis=0), b, axis=1)
        members[a] += members[b]
        del members[b]
    return found


def _similarity(
    ordered: Sequence[Slot], vectors: Mapping[Slot, npt.ArrayLike]
) -> npt.NDArray[np.float64]:
    rows = np.asarray([vectors[s] for s in ordered], dtype=np.float64)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    similarity: npt.NDArray[np.float64] = rows @ rows.T
    return similarity


def _join_alike(groups: list[list[int]], similarity: npt.NDArray[np.float64]) -> list[list[int]]:
    """Join groups that are alike on average, most alike first.

    Alike: more than ``APART_SIMILARITY``, and more than ``APART_SHARE`` of the mean of the
    two groups' own likeness (``_within``).
    """
    groups = [sorted(g) for g in groups]
    while len(groups) > 1:
        pairs = [
            (float(similarity[np.ix_(a, b)].mean()), i, j)
            for (i, a), (j, b) in itertools.combinations(enumerate(groups), 2)
        ]
        alike, i, j = max(pairs)
        own = (_within(groups[i], similarity) + _within(groups[j], similarity)) / 2
        if alike <= APART_SIMILARITY or alike <= APART_SHARE * own:
            break
        groups[i] = sorted(groups[i] + groups[j])
        del groups[j]
    return groups


def _within(group: list[int], similarity: npt.NDArray[np.float64]) -> float:
    """How alike a group's facts are on average, each with the others (not with itself)."""
    block = similarity[np.ix_(group, group)]
    n = len(group)
    return float((block.sum() - np.trace(block)) / (n * (n - 1)))


def _slots_by_name(facts: Sequence[FactNames], shared: Collection[str]) -> dict[str, list[Slot]]:
    by_name: defaultdict[str, list[Slot]] = defaultdict(list)
    for fid, content, mentions in facts:
        seen: set[str] = set()
        for i, (text, kind) in enumerate(mentions):
            key = name_key(text)
            grouped = type_class(kind) == "person" or (
                type_class(kind) == "organization" and key in shared
            )
            if not grouped or len(key.split()) < 2 or key in seen:
                continue
            # A name the fact's text does not write (a caller's entity joins every fact of its
            # item) keeps no company there: the sentence is about something else. Written is
            # where the mask finds it (``_masked``), in whatever case a caller wrote the name.
            if text and _written_at(text).search(content) is not None:
                seen.add(key)
                by_name[key].append((fid, i))
    return {k: v for k, v in by_name.items() if len(v) >= 2 * MIN_GROUP}


def _short_names(facts: Sequence[FactNames]) -> dict[str, tuple[list[Slot], list[Slot]]]:
    """Short name → (its full name's slots, its short slots), where one person's full name has it.

    A short name is a bare given name ("Mats", keyed ``given:mats``) or a title and a surname
    ("Dr. Barry", "Prof. Barry": ``surname:doctor:barry``, one key for each kind of title),
    with ``MIN_BARE_GROUP`` uses or more in a block whose people's full names that begin (a
    given name) or end (a surname) with it are one name ("Mats Rønning", "Mats Ronning"). With
    two full names the short one is a short name of namesakes, which the replay decides last
    anyway. Chat turns are left out (the module docstring).
    """
    full: defaultdict[str, list[Slot]] = defaultdict(list)
    short: defaultdict[str, list[Slot]] = defaultdict(list)
    names: defaultdict[str, set[str]] = defaultdict(set)
    surnames: defaultdict[str, list[tuple[Slot, str]]] = defaultdict(list)
    for fid, content, mentions in facts:
        if SPEAKER_PREFIX.match(content):
            continue  # a chat turn: said to someone, in another register than a note about them
        for i, (text, kind) in enumerate(mentions):
            if type_class(kind) != "person" or not (text and _written_at(text).search(content)):
                continue
            title, plain = _titled(name_key(text))
            if len(plain) == 1 and (title is None or title in KIN_TITLES):
                short[f"given:{plain[0]}"].append((fid, i))  # "Mats", "Auntie Ngozi"
            elif len(plain) == 1 and title is not None:
                # One kind of title, one set: "Dr. Barry" and "Prof. Barry" may be one person,
                # "Mrs. Barry" is not he, as the name guards have it already.
                title_kind = ADDRESS_TITLES.get(title, title)
                short[f"surname:{title_kind}:{plain[0]}"].append((fid, i))
            elif len(plain) >= 2:
                full_name = " ".join(plain)
                given = f"given:{plain[0]}"
                full[given].append((fid, i))
                names[given].add(full_name)
                surnames[plain[-1]].append(((fid, i), full_name))
    for key in short:
        if key.startswith("surname:"):
            for slot, full_name in surnames[_short_word(key)]:
                full[key].append(slot)
                names[key].add(full_name)
    return {
        key: (full[key], slots)
        for key, slots in short.items()
        if len(slots) >= MIN_BARE_GROUP and len(names[key]) == 1
    }


def _titled(key: str) -> tuple[str | None, list[str]]:
    """A person's name key → the title it is written with, if any, and its other words.

    "Prof. Dr. Barry" → ("prof", ["barry"]), "Tanaka-san" → ("san", ["tanaka"]). The words are
    whole and folded: "Anne-Lise" is one given name.
    """
    honorific = suffixed_honorific(key)
    if honorific:  # "Tanaka-san" is "Ms Tanaka"
        return honorific, [fold(word) for word in key[: -len(honorific) - 1].split()]
    words = key.split()
    title: str | None = None
    while len(words) > 1:
        tokens = name_tokens(words[0])
        if len(tokens) != 1 or tokens[0] not in PERSON_TITLES:
            break
        title, words = title or tokens[0], words[1:]
    return title, [fold(word) for word in words]


def _short_word(key: str) -> str:
    """A short name's word: "mats" of ``given:mats``, "barry" of ``surname:doctor:barry``."""
    return key.rpartition(":")[2]


def _written_at(name: str) -> re.Pattern[str]:
    """Where a fact's text writes the name, in any case."""
    return re.compile(re.escape(name), re.IGNORECASE)


# Blanks a word that names something or counts (``_form``).
_BLANK = "_"


def _form(text: str) -> str:
    """The sentence with its named things and numbers blanked, a run of them as one blank.

    Capitalised words (any script that has case) and words with a digit are what a template
    is filled with: "X met Ada Brenner in Graz on 3 May" and "X met Jun Okabe in Kobe on 9
    June" are one way of writing.
    """
    words: list[str] = []
    for word in text.split():
        blank = word[0].isupper() or any(ch.isdigit() for ch in word)
        if not (blank and words and words[-1] == _BLANK):
            words.append(_BLANK if blank else word)
    return " ".join(words)
