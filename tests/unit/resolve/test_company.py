"""Namesakes told apart by the company their facts keep (``app.resolve.company``)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from app.config import load_settings
from app.resolve.batch import FactInput
from app.resolve.company import MASK, company_groups, company_texts
from app.resolve.memory_bank import MemoryBank
from app.resolve.model import Mention
from app.resolve.qualifiers import COMPANY, Qualifier, conflict
from app.resolve.settle import SettleFact, SettleMention, company_reviews, replay
from app.resolve.settle_store import CachedEmbed
from app.store.embeddings import Embedder
from tests.conftest import TEST_MODELS_DIR
from tests.support.namesakes import (
    BAND_FACTS,
    CHOIR_FACTS,
    DENTAL_FACTS,
    ENGINE_FACTS,
    ROWING_FACTS,
    TAX_FACTS,
)
from tests.unit.resolve.test_likeness import fact

CHOIR = [1.0, 0.0, 0.0]
ENGINE = [0.0, 1.0, 0.0]
ODD = [0.0, 0.0, 1.0]


# What each fact says its holder did: a sentence of its own, not one form with other names.
DEEDS = ("sang", "rowed", "cooked", "painted", "fished", "danced", "read", "slept", "swam")


def names(
    n: int, text: str = "Wen Harlow", kind: str = "person"
) -> list[tuple[str, str, list[tuple[str, str | None]]]]:
    return [
        (f"f{i:02d}", f"{text} {DEEDS[i]} at Tarn Quay.", [(text, kind), ("Tarn Quay", "place")])
        for i in range(n)
    ]


def test_two_groups_of_facts_that_share_nothing_are_two_namesakes() -> None:
    facts = names(8)
    vectors = {(f"f{i:02d}", 0): CHOIR if i < 4 else ENGINE for i in range(7)}
    vectors[("f07", 0)] = ODD
    labels = company_groups(facts, vectors)
    choir = {labels[(f"f{i:02d}", 0)] for i in range(4)}
    engine = {labels[(f"f{i:02d}", 0)] for i in range(4, 7)}
    assert len(choir) == len(engine) == 1 and choir != engine
    assert ("f07", 0) not in labels  # a fact like neither group is decided last
    assert not any(slot[1] == 1 for slot in labels)  # the place is no person
    assert all(q.kind == COMPANY for q in labels.values())
    # Whatever the order of the facts, the same groups with the same keys.
    assert company_groups(facts[::-1], vectors) == labels


def two_settings(own: float, between: float) -> dict[tuple[str, int], list[float]]:
    """Facts f00-f03 and f04-f07, ``own`` alike within each group and ``between`` across."""
    bases = [[1.0, 0.0], [between / own, (1 - (between / own) ** 2) ** 0.5]]
    out = {}
    for i in range(8):
        row = [b * own**0.5 for b in bases[i // 4]] + [0.0] * 8
        row[2 + i] = (1 - own) ** 0.5  # a direction of the fact's own
        out[(f"f{i:02d}", 0)] = row
    return out


def test_two_groups_still_alike_on_average_are_one_person_in_two_settings() -> None:
    # Apart at every level where each is one group, but 0.25 alike on average, and each
    # group's facts 0.35 alike: the way one person is written about, at home and at work.
    assert company_groups(names(8), two_settings(0.35, 0.25)) == {}
    # 0.10 alike is under the bar; 0.20 is above it but under half of how each group's facts
    # (0.45) hold together: two namesakes in one small world.
    assert len(set(company_groups(names(8), two_settings(0.35, 0.10)).values())) == 2
    assert len(set(company_groups(names(8), two_settings(0.45, 0.20)).values())) == 2


def test_one_person_whose_facts_hold_together_or_a_place_or_too_few_facts_is_no_namesake() -> None:
    alike = {(f"f{i:02d}", 0): CHOIR for i in range(8)}
    assert company_groups(names(8), alike) == {}
    apart = {(f"f{i:02d}", 0): CHOIR if i < 4 else ENGINE for i in range(8)}
    assert company_groups(names(8, "Tarn Quay Marina", "place"), apart) == {}
    assert company_groups(names(5), apart) == {}


# A sentence stored four times over, and one set sentence filled with other names four times:
# as alike as facts can be, each says one thing once (how the notes are written, not who is
# meant), not a second person's three statements or more.
COPIES = ["Wen Harlow fixed the coolant line."] * 4
ONE_FORM = [
    f"Wen Harlow met {who} in {where}."
    for who, where in [
        ("Ede Brask", "Tarn Quay"),
        ("Ola Vint", "Sorrow Bay"),
        ("Ida Kell", "Vang 9"),
        ("Bo Aske", "Hull"),
    ]
]


@pytest.mark.parametrize("repeated", [COPIES, ONE_FORM], ids=["copies", "one form"])
def test_one_statement_made_again_counts_once_and_shares_its_group(repeated: list[str]) -> None:
    facts = names(4)
    facts += [(f"f{i:02d}", text, facts[0][2]) for i, text in enumerate(repeated, 4)]
    vectors = {(f"f{i:02d}", 0): CHOIR if i < 4 else ENGINE for i in range(8)}
    assert company_groups(facts, vectors) == {}
    # With two more engine statements of their own, the engine group holds three statements;
    # every fact of the repeated one carries its label.
    facts += [
        ("f08", "Wen Harlow swapped a pump.", facts[0][2]),
        ("f09", "Wen Harlow bled the brakes.", facts[0][2]),
    ]
    vectors |= {("f08", 0): ENGINE, ("f09", 0): ENGINE}
    labels = company_groups(facts, vectors)
    engine = {labels[(f"f{i:02d}", 0)] for i in range(4, 10)}
    assert len(engine) == 1 and engine != {labels[("f00", 0)]}
    assert engine.pop().text == "3 facts alike"
    assert company_groups(facts[::-1], vectors) == labels


def test_groups_that_write_the_same_other_names_keep_one_persons_company() -> None:
    vectors = {(f"f{i:02d}", 0): CHOIR if i < 4 else ENGINE for i in range(8)}
    apart = {f"f{i:02d}": {"wen harlow", "ede brask" if i < 4 else "ola vint"} for i in range(8)}
    assert len(set(company_groups(names(8), vectors, beside=apart).values())) == 2
    # One name both groups write is no company of one person's (a town, a shop); two are.
    one = apart | {"f00": {"ede brask", "ola vint"}}
    assert len(set(company_groups(names(8), vectors, beside=one).values())) == 2
    two = apart | {"f00": {"ede brask", "ola vint", "ida kell"}, "f05": {"ida kell"}}
    assert company_groups(names(8), vectors, beside=two) == {}
    # A name the text says is shared keeps its groups: the text said there are two.
    assert len(set(company_groups(names(8), vectors, {"wen harlow"}, two).values())) == 2


def test_facts_that_carry_the_name_without_writing_it_keep_no_company_of_it() -> None:
    # A caller's entity joins every fact of its item: four sentences about other people carry
    # the name too. They say nothing of its holder, so they part nobody from the choir.
    facts = names(4)
    facts += [(f"f{i:02d}", f"The engine shed got new lamp {i}.", facts[0][2]) for i in range(4, 8)]
    vectors = {(f"f{i:02d}", 0): CHOIR if i < 4 else ENGINE for i in range(8)}
    assert company_groups(facts, vectors) == {}
    assert company_texts(facts) == {}  # eight facts hold it, four write it: too few
    facts += [(f"f{i:02d}", f"Wen Harlow sang hymn {i}.", facts[0][2]) for i in (8, 9)]
    assert set(company_texts(facts)) == {(f"f{i:02d}", 0) for i in (0, 1, 2, 3, 8, 9)}


def test_a_name_the_text_says_is_shared_is_parted_even_where_its_groups_are_alike() -> None:
    # 0.25 alike on average: read as one person in two settings, unless the text said the
    # name is shared; then the two groups are two holders.
    vectors = two_settings(0.35, 0.25)
    assert company_groups(names(8), vectors) == {}
    parted = company_groups(names(8), vectors, shared={"wen harlow"})
    assert len({parted[(f"f{i:02d}", 0)] for i in range(4)}) == 1
    assert len({parted[(f"f{i:02d}", 0)] for i in range(4, 8)}) == 1
    assert len(set(parted.values())) == 2
    assert company_groups(names(8)[::-1], vectors, shared={"wen harlow"}) == parted
    # An organisation's facts are grouped only when the text says its name is shared; one
    # whose facts all hold together is still one holder.
    cafe = names(8, "Kafé Tarn", "organization")
    assert company_groups(cafe, vectors) == {}
    assert len(set(company_groups(cafe, vectors, shared={"kafé tarn"}).values())) == 2
    alike = {(f"f{i:02d}", 0): CHOIR for i in range(8)}
    assert company_groups(names(8), alike, shared={"wen harlow"}) == {}


def test_a_shared_names_holders_are_parted_where_the_smaller_is_largest_not_by_odd_facts() -> None:
    # Two holders, five facts and seven, a little alike (0.3), and three odd facts alike only
    # among themselves (0.2): the tree's last state with two groups of three sets the odd
    # three against everything else; the node that joins the two holders is where the
    # smaller group is largest.
    size = {"a": 5, "b": 7, "odd": 3}
    dims = 3 + size["odd"]
    facts, vectors = [], {}
    verbs = iter((*DEEDS, "wrote", "ran", "sailed", "baked", "knitted", "drew"))
    for holder in ("a", "b", "odd"):
        for n in range(size[holder]):
            fid = f"{holder}{n:02d}"
            facts.append(
                (fid, f"Wen Harlow {next(verbs)} at Tarn Quay.", [("Wen Harlow", "person")])
            )
            row = [0.0] * dims
            if holder == "a":
                row[0] = 1.0
            elif holder == "b":
                row[0], row[1] = 0.3, (1 - 0.3**2) ** 0.5
            else:
                row[2], row[3 + n] = 0.2**0.5, 0.8**0.5
            vectors[(fid, 0)] = row
    parted = company_groups(facts, vectors, shared={"wen harlow"})
    holders = {
        holder: {parted.get((f"{holder}{n:02d}", 0)) for n in range(size[holder])}
        for holder in size
    }
    assert len(holders["a"]) == len(holders["b"]) == 1
    assert holders["a"] != holders["b"] and None not in holders["a"] | holders["b"]
    assert holders["odd"] == {None}, "odd facts are in no group: decided last"


def test_a_shared_names_holder_written_about_in_two_settings_stays_one_group() -> None:
    # One holder's twenty facts in two settings (0.3 alike), another's four: the state with
    # the holder's two settings and the other holder has three groups, and is no cut.
    kinds = ("red", "green", "yellow", "black")
    words = [
        f"{kind} {fruit}"
        for kind in kinds
        for fruit in ("apples", "pears", "plums", "figs", "dates", "limes")
    ]
    facts, vectors = [], {}
    for n, word in enumerate(words):
        fid = f"f{n:02d}"
        facts.append((fid, f"Wen Harlow sold {word} at Tarn Quay.", [("Wen Harlow", "person")]))
        if n < 10:
            vectors[(fid, 0)] = [1.0, 0.0, 0.0]
        elif n < 20:
            vectors[(fid, 0)] = [0.3, (1 - 0.3**2) ** 0.5, 0.0]
        else:
            vectors[(fid, 0)] = [0.1, 0.0, (1 - 0.1**2) ** 0.5]
    parted = company_groups(facts, vectors, shared={"wen harlow"})
    assert len({parted[(f"f{n:02d}", 0)] for n in range(20)}) == 1
    assert len({parted[(f"f{n:02d}", 0)] for n in range(20, 24)}) == 1
    assert len(set(parted.values())) == 2


def test_the_texts_compared_mask_the_name_and_only_names_held_often_are_read() -> None:
    with_ede = [("Wen Harlow", "person"), ("Ede Brask", "person")]
    facts = [
        (f"f{i}", f"Wen Harlow tuned the organ with Ede Brask, day {i}.", with_ede)
        for i in range(5)
    ]
    facts.append(("f5", "Wen Harlow tuned the organ.", [("Wen Harlow", "person")]))
    texts = company_texts(facts)
    assert set(texts) == {(f"f{i}", 0) for i in range(6)}  # Ede Brask: five facts, too few
    assert texts[("f0", 0)] == f"{MASK} tuned the organ with Ede Brask, day 0."
    # A caller may write the name in another case than the text does: it is still written.
    lower = [(fid, text, [("wen harlow", "person")]) for fid, text, _ in facts]
    assert company_texts(lower)[("f5", 0)] == f"{MASK} tuned the organ."


def test_company_qualifiers_of_two_groups_conflict_and_agree_with_anything_else() -> None:
    a = Qualifier(kind=COMPANY, key="wen harlow#f00", text="4 facts alike")
    b = Qualifier(kind=COMPANY, key="wen harlow#f04", text="3 facts alike")
    town = Qualifier(kind="place", key="tarn quay", text="Tarn Quay")
    assert conflict([a], [b]) is not None
    assert conflict([a], [a, town]) is None
    assert conflict([a], [town]) is None
    # In one group, what each side says its holder is are facets of one person; in two
    # groups, or where the places differ, they still part.
    welder = Qualifier(kind="role", key="retired welder", text="a retired welder")
    club = Qualifier(kind="description", key="rowing club", text="the rowing club")
    harbour = Qualifier(kind="place", key="tarn harbour", text="Tarn Harbour")
    assert conflict([welder], [club]) is not None
    assert conflict([a, welder], [a, club]) is None
    assert conflict([a, welder], [b, club]) is not None
    assert conflict([a, town], [a, harbour]) is not None


T0 = datetime(2027, 3, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
async def embedder(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Embedder]:
    settings = load_settings(
        {}, data_dir=str(tmp_path_factory.mktemp("company-embed")), models_dir=str(TEST_MODELS_DIR)
    )
    yield await Embedder.load(settings)


def test_namesakes_parted_by_company_are_put_to_a_person_and_one_entity_is_not() -> None:
    facts = [
        SettleFact(
            memory_id=f"f{i}",
            at=T0 + timedelta(days=i),
            content=f"fact {i}",
            mentions=(SettleMention(text="Wen Harlow", entity_id="e1", type="person"),),
        )
        for i in range(7)
    ]
    choir = Qualifier(kind=COMPANY, key="wen harlow#f0", text="3 facts alike")
    engine = Qualifier(kind=COMPANY, key="wen harlow#f3", text="4 facts alike")
    company = {("f0", 0): choir, ("f1", 0): choir, ("f2", 0): choir}
    company |= {(f"f{i}", 0): engine for i in range(3, 7)}
    apart = {
        (f"f{i}", "e1", "Wen Harlow"): "settle-0001" if i < 3 else "settle-0002" for i in range(7)
    }
    (review,) = company_reviews(facts, company, apart)
    assert (review.entity_id, review.others) == ("settle-0001", ("settle-0002",))
    assert review.reason.startswith("Wen Harlow: two people")
    assert review.reason.endswith("(3 and 4 facts alike)")
    # A name the text says is shared is reviewed as such.
    (stated,) = company_reviews(facts, company, apart, shared={"wen harlow"})
    assert stated.reason.startswith("Wen Harlow: a name the text says is shared")
    # A group's odd mention elsewhere does not change who holds it.
    assert company_reviews(facts, company, apart | {("f6", "e1", "Wen Harlow"): "settle-0009"}) == [
        review
    ]
    # Other evidence put both groups on one entity: nothing to review.
    together = {slot: "settle-0001" for slot in apart}
    assert company_reviews(facts, company, together) == []


def _blocking(embedder: Embedder) -> Callable[[Sequence[str]], Sequence[Sequence[float]]]:
    # MemoryBank calls the model without an event loop of its own: run it in a fresh one.
    def embed(texts: Sequence[str]) -> Sequence[Sequence[float]]:
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(lambda: asyncio.run(embedder.embed(texts)).tolist()).result()

    return embed


def _facts() -> list[FactInput]:
    # Interleaved in time, as two namesakes would be met over a year.
    return _interleaved(CHOIR_FACTS, ENGINE_FACTS, "Wen Harlow")


def _people(
    facts: list[FactInput], embed: Callable[[Sequence[str]], Sequence[Sequence[float]]] | None
) -> set[frozenset[str]]:
    bank = MemoryBank(embed=embed)
    for f in facts:
        bank.retain(f)
    groups: dict[str, set[str]] = {}
    for f in bank.facts:
        groups.setdefault(f.mentions[0].entity_id, set()).add(f.content)
    return {frozenset(g) for g in groups.values()}


async def test_two_namesakes_known_only_by_what_their_facts_say_are_two_people_in_any_order(
    embedder: Embedder,
) -> None:
    embed = _blocking(embedder)
    facts = _facts()
    forward = _people(facts, embed)
    assert forward == _people(facts[::-1], embed)
    # Each person's facts on one entity of their own (an odd fact out may stay apart).
    choir = [g for g in forward if g & set(CHOIR_FACTS)]
    engine = [g for g in forward if g & set(ENGINE_FACTS)]
    assert not any(g & set(ENGINE_FACTS) for g in choir)
    assert max(len(g) for g in choir) >= 4 and max(len(g) for g in engine) >= 4
    # Without the embedding model the name is one person: nothing else tells them apart.
    assert _people(facts, None) == {frozenset(CHOIR_FACTS + ENGINE_FACTS)}


def _interleaved(first: list[str], second: list[str], name: str) -> list[FactInput]:
    texts = [t for pair in itertools.zip_longest(first, second) for t in pair if t]
    return [
        FactInput(
            mentions=(Mention(text=name, type="person"),),
            at=T0 + timedelta(days=7 * i),
            content=text,
            memory_id=f"m{i:02d}",
        )
        for i, text in enumerate(texts)
    ]


def _in_both_orders(
    first: list[str],
    second: list[str],
    name: str,
    embed: Callable[[Sequence[str]], Sequence[Sequence[float]]],
) -> set[frozenset[str]]:
    """The people two namesakes' interleaved facts make; the same when read in reverse."""
    facts = _interleaved(first, second, name)
    forward = _people(facts, embed)
    assert forward == _people(facts[::-1], embed)
    return forward


async def test_namesakes_whose_name_the_text_says_is_shared_are_two_in_any_order(
    embedder: Embedder,
) -> None:
    forward = _in_both_orders(BAND_FACTS, DENTAL_FACTS, "Ines Varga", _blocking(embedder))
    band = max(forward, key=lambda g: len(g & set(BAND_FACTS)))
    dental = max(forward, key=lambda g: len(g & set(DENTAL_FACTS)))
    assert band != dental
    assert len(band & set(BAND_FACTS)) >= 4 and len(dental & set(DENTAL_FACTS)) >= 4
    # The sentence that says it compares her to the other one; it may go either way.
    assert len(band & set(DENTAL_FACTS)) + len(dental & set(BAND_FACTS)) <= 1


async def test_a_settle_embeds_each_text_once_while_it_is_cached() -> None:
    asked: list[list[str]] = []

    async def model(texts: Sequence[str]) -> list[list[float]]:
        asked.append(list(texts))
        return [[float(len(t)), 1.0] for t in texts]

    cached = CachedEmbed(model, size=2)
    first = await cached(["ab", "abc", "ab"])
    assert first.tolist() == [[2.0, 1.0], [3.0, 1.0], [2.0, 1.0]]
    await cached(["abc", "ab"])
    assert asked == [["ab", "abc"]]  # the second settle of the block embeds nothing
    await cached(["abcd"])  # the cache holds two texts: the least recently read goes
    await cached(["ab"])
    await cached(["abc"])
    assert asked == [["ab", "abc"], ["abcd"], ["abc"]]


async def test_a_cached_text_pushed_out_while_the_model_runs_is_still_returned() -> None:
    """Two banks settle side by side: one's new texts may push out what the other read."""
    release = asyncio.Event()

    async def model(texts: Sequence[str]) -> list[list[float]]:
        if "slow" in texts:
            await release.wait()
        return [[float(len(t))] for t in texts]

    cached = CachedEmbed(model, size=2)
    await cached(["a"])
    waiting = asyncio.create_task(cached(["a", "slow"]))
    await asyncio.sleep(0)
    await cached(["bb", "ccc"])  # fills the cache: "a" goes
    release.set()
    assert (await waiting).tolist() == [[1.0], [4.0]]


async def test_one_namesakes_facets_that_share_no_word_stay_one_person_in_any_order(
    embedder: Embedder,
) -> None:
    forward = _in_both_orders(ROWING_FACTS, TAX_FACTS, "Ola Vestrum", _blocking(embedder))
    # The rower is a retired welder, from the rowing club and the boat captain: one entity.
    rower = [g for g in forward if g & set(ROWING_FACTS)]
    assert len(rower) == 1 and not rower[0] & set(TAX_FACTS[1:])
    tax = max(forward, key=lambda g: len(g & set(TAX_FACTS)))
    assert len(tax & set(TAX_FACTS)) >= 4


def test_a_mention_left_out_of_a_names_groups_is_decided_after_them() -> None:
    # "The engineer" shares no word with "Brask Rail", the one facet the engine mechanic has
    # when it comes in time order; once his group is in, "the rail engineer" is his too.
    def note(day: int, content: str) -> SettleFact:
        mention = SettleMention(text="Wen Harlow", entity_id=f"e{day:02d}", type="person")
        return SettleFact(
            memory_id=f"f{day:02d}",
            at=T0 + timedelta(days=day),
            content=content,
            mentions=(mention,),
        )

    choir = [
        note(day, f"Wen Harlow, our choir director, picked the {piece}.")
        for day, piece in ((2, "anthem"), (4, "psalm"), (6, "carol"), (8, "motet"))
    ]
    engine = [
        note(1, "Wen Harlow from Brask Rail fixed a coolant line."),
        note(3, "Wen Harlow replaced a leaking fuel pump."),
        note(30, "Wen Harlow, the rail engineer, swapped a traction motor."),
    ]
    odd = note(5, "Wen Harlow, the engineer, trained two apprentices.")
    vectors = {(f.memory_id, 0): CHOIR for f in choir} | {(f.memory_id, 0): ENGINE for f in engine}
    vectors[(odd.memory_id, 0)] = ODD
    facts = [*choir, *engine, odd]
    for order in (facts, facts[::-1]):
        targets = replay(
            order,
            {f.mentions[0].entity_id for f in facts},
            [],
            {},
            bank_entities=8,
            company_vectors=vectors,
        ).targets
        holder = {
            f.memory_id: targets[(f.memory_id, f.mentions[0].entity_id, "Wen Harlow")]
            for f in facts
        }
        assert len({holder[f.memory_id] for f in engine}) == 1
        assert holder[odd.memory_id] == holder["f01"] != holder["f02"]


@pytest.mark.parametrize("order", [1, -1])
def test_a_bare_name_does_not_take_the_holder_its_fact_names_by_another_name(
    embedder: Embedder, order: int
) -> None:
    # Two men called Imre: the priest, and the one who runs the boathouse. A message from
    # "Imre" asking for the priest is like the priest's facts because it names him; the one
    # asking is someone else, and the priest's title still names the priest.
    facts = [
        fact(
            1, "Father Kalnai preaches with an accent so thick the choir leans in.", "Father Kalnai"
        ),
        fact(
            4, "Imre Kalnai came to the clinic with a cut hand from splitting wood.", "Imre Kalnai"
        ),
        fact(40, "Imre Vasko, who runs the boathouse, came in for his annual check.", "Imre Vasko"),
        fact(55, "Father Imre lit the candles outside the chapel.", "Father Imre"),
        fact(76, "Imre: Is Father Kalnai around?", "Imre", "Father Kalnai"),
        fact(98, "Father Kalnai blessed the boathouse's new launch.", "Father Kalnai"),
        fact(150, "Imre Vasko has forty children in the rowing class.", "Imre Vasko"),
        fact(160, "Saw Imre Kalnai rowing on the lake!", "Imre Kalnai"),
        fact(220, "Father Kalnai asked me to help at the soup kitchen.", "Father Kalnai"),
    ][::order]
    bank = MemoryBank(embed=_blocking(embedder))
    for f in facts:
        bank.retain(f)
    entity_of = {(f.memory_id, m.text): m.entity_id for f in bank.facts for m in f.mentions}
    # Every "Kalnai" is the priest (no second priest is made of the one asked for) ...
    [priest] = {eid for (_, text), eid in entity_of.items() if "Kalnai" in text}
    # ... and the one asking for him is not he.
    assert entity_of[("m076", "Imre")] != priest


# Things done, one per fact: facts of one form are one statement (``company._form``).
CHORES = (
    "mended the gate", "fed the hens", "cut the hedge", "swept the yard", "fixed the pump",
    "oiled the hinges", "stacked the wood", "cleaned the gutters", "painted the shed",
    "dug the beds", "emptied the bins",
)  # fmt: skip


def _given_name_facts(
    bare_apart: int = 4, bare_along: int = 2, full: str = "Wen Harlow", short: str = "Wen"
) -> tuple[list[tuple[str, str, list[tuple[str, str | None]]]], dict[tuple[str, int], list[float]]]:
    """Four facts of ``full`` and ``short`` facts: ``bare_along`` like them, ``bare_apart`` not."""
    facts: list[tuple[str, str, list[tuple[str, str | None]]]] = []
    vectors: dict[tuple[str, int], list[float]] = {}
    kinds = ["full"] * 4 + ["along"] * bare_along + ["apart"] * bare_apart
    for i, kind in enumerate(kinds):
        name = full if kind == "full" else short
        fid = f"f{i:02d}"
        facts.append((fid, f"{name} {CHORES[i]} today.", [(name, "person")]))
        vectors[(fid, 0)] = ENGINE if kind == "apart" else CHOIR
    return facts, vectors


def test_bare_uses_of_a_given_name_apart_from_its_full_names_are_another_holders() -> None:
    facts, vectors = _given_name_facts()
    beside = {fid: {"ede brask"} if int(fid[1:]) < 6 else {"ola vint"} for fid, _, _ in facts}
    labels = company_groups(facts, vectors, beside=beside)
    anchor = {labels[(f"f{i:02d}", 0)] for i in range(6)}
    apart = {labels[(f"f{i:02d}", 0)] for i in range(6, 10)}
    assert len(anchor) == len(apart) == 1 and anchor != apart
    assert company_groups(facts[::-1], vectors, beside=beside) == labels
    # The texts compared are the full and the bare facts, each with its own name masked.
    assert company_texts(facts)[("f06", 0)] == f"{MASK} {CHORES[6]} today."


def test_bare_uses_of_a_given_name_stay_its_full_names_unless_every_sign_parts_them() -> None:
    facts, vectors = _given_name_facts()
    beside = {fid: {"ede brask"} if int(fid[1:]) < 6 else {"ola vint"} for fid, _, _ in facts}
    # Without what the facts write beside the name, nothing is read.
    assert company_groups(facts, vectors) == {}
    # A name the bare facts write with the full name's facts keeps them one person's company.
    assert company_groups(facts, vectors, beside=beside | {"f07": {"ola vint", "ede brask"}}) == {}
    # Facts alike to the full name's are his.
    along = {slot: CHOIR for slot in vectors}
    assert company_groups(facts, along, beside=beside) == {}
    # Chat turns are said to someone, in another register than notes about him: not read.
    chat = [(fid, f"Ede: {text}" if int(fid[1:]) >= 6 else text, m) for fid, text, m in facts]
    assert company_groups(chat, vectors, beside=beside) == {}
    # Three bare facts apart are too few: a person's odd facts make a group of three.
    few, few_vectors = _given_name_facts(bare_apart=3)
    assert company_groups(few, few_vectors, beside=beside) == {}
    # Two full names begin with it: the bare name is a short name of namesakes, read as such.
    two, two_vectors = _given_name_facts()
    two.append(("f99", "Wen Okoro baked bread today.", [("Wen Okoro", "person")]))
    two_vectors[("f99", 0)] = ODD
    assert company_groups(two, two_vectors, beside=beside) == {}


def test_a_title_and_surname_used_apart_from_the_full_name_are_another_holders() -> None:
    beside = {f"f{i:02d}": {"ede brask"} if i < 6 else {"ola vint"} for i in range(10)}
    # "Prof. Wen Harlow" teaches the course, the "Dr. Harlow" apart from him is the family GP:
    # a doctor's title and a professor's are one kind, and may be one person's.
    facts, vectors = _given_name_facts(full="Prof. Wen Harlow", short="Dr. Harlow")
    labels = company_groups(facts, vectors, beside=beside)
    anchor = {labels[(f"f{i:02d}", 0)] for i in range(6)}
    apart = {labels[(f"f{i:02d}", 0)] for i in range(6, 10)}
    assert len(anchor) == len(apart) == 1 and anchor != apart
    assert company_groups(facts[::-1], vectors, beside=beside) == labels
    # A title written after the surname ("Harlow-san") is read as one before it.
    facts, vectors = _given_name_facts(full="Wen Harlow", short="Harlow-san")
    assert len(set(company_groups(facts, vectors, beside=beside).values())) == 2
    # A title of kin goes with a given name: "Auntie Wen" is read as "Wen" is; a hyphenated
    # given name is one word.
    for full, short in (("Wen Harlow", "Auntie Wen"), ("Wen-Li Harlow", "Wen-Li")):
        facts, vectors = _given_name_facts(full=full, short=short)
        assert len(set(company_groups(facts, vectors, beside=beside).values())) == 2
    # Two full names end with the surname: "Dr. Harlow" is a short name of namesakes.
    facts, vectors = _given_name_facts(full="Wen Harlow", short="Dr. Harlow")
    facts.append(("f99", "Ola Harlow baked bread today.", [("Ola Harlow", "person")]))
    vectors[("f99", 0)] = ODD
    assert company_groups(facts, vectors, beside=beside) == {}


async def test_a_bare_given_name_used_apart_from_its_full_name_is_another_person_in_any_order(
    embedder: Embedder,
) -> None:
    # "Wen Harlow" directs the choir; "Wen" of the engine shed is never given a surname.
    texts = [(t, "Wen Harlow") for t in CHOIR_FACTS] + [
        (t.replace("Wen Harlow", "Wen"), "Wen") for t in ENGINE_FACTS
    ]
    texts = [texts[i] for pair in zip(range(6), range(6, 12), strict=True) for i in pair]
    facts = [
        FactInput(
            mentions=(Mention(text=name, type="person"),),
            at=T0 + timedelta(days=7 * i),
            content=text,
            memory_id=f"m{i:02d}",
        )
        for i, (text, name) in enumerate(texts)
    ]
    embed = _blocking(embedder)
    forward = _people(facts, embed)
    assert forward == _people(facts[::-1], embed)
    choir = max(forward, key=lambda g: len(g & set(CHOIR_FACTS)))
    assert choir == set(CHOIR_FACTS)
    # Without the model a bare given name is its one full-named holder's.
    assert len(_people(facts, None)) == 1
