"""A short or plain name of namesakes joins the one whose facts its fact is most like
(``evidence.alike_pick``, ``WorkingSet.likeness``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import msgspec
import numpy as np
import pytest

from app.resolve.batch import FactInput
from app.resolve.memory_bank import MemoryBank
from app.resolve.model import Mention
from app.resolve.scoring import DEFAULT_POLICY
from app.resolve.settle import unit_rows
from app.resolve.working_set import WorkingSet
from tests.unit.resolve.test_settle import fact as typed
from tests.unit.resolve.test_settle import partition

T0 = datetime(2027, 1, 1, tzinfo=UTC)

# What each fact is about, as a model would place it: chess, a kitchen, or neither.
TOPICS = {"chess": [1.0, 0.0, 0.0], "rook": [1.0, 0.0, 0.0], "kitchen": [0.0, 1.0, 0.0]}


def embed(texts: Sequence[str]) -> list[list[float]]:
    """A stand-in model: a fact is near the topic whose word it holds (others lie between)."""
    out = []
    for text in texts:
        row = next((v for word, v in TOPICS.items() if word in text), [0.0, 0.0, 1.0])
        out.append([x + 0.1 for x in row])
    return out


def fact(day: int, content: str, *names: str) -> FactInput:
    return FactInput(
        mentions=tuple(Mention(text=n, type="person") for n in names),
        at=T0 + timedelta(days=day),
        content=content,
        memory_id=f"m{day:03d}",
    )


HOLDERS = [
    fact(1, "Oren Amsel joined the chess club.", "Oren Amsel"),
    fact(2, "Oren Ferrand opened his kitchen near the harbour.", "Oren Ferrand"),
    fact(3, "Oren Amsel won a chess game on Wednesday.", "Oren Amsel"),
    fact(4, "Oren Ferrand burned caramel in the kitchen near the harbour.", "Oren Ferrand"),
]
AMSEL = frozenset({"m001:Oren Amsel", "m003:Oren Amsel"})
FERRAND = frozenset({"m002:Oren Ferrand", "m004:Oren Ferrand"})


def identities(facts: list[FactInput], model: object) -> set[frozenset[str]]:
    bank = MemoryBank(embed=model)  # type: ignore[arg-type]
    for f in facts:
        bank.retain(f)
    return partition(bank)


@pytest.mark.parametrize("order", [1, -1])
def test_a_bare_name_of_two_holders_joins_the_one_its_fact_is_most_like(order: int) -> None:
    # About chess, and shares a word with the cook's facts.
    chess = fact(40, "Oren studied a rook endgame near the harbour.", "Oren")
    facts = [*HOLDERS, chess][::order]
    assert AMSEL | {"m040:Oren"} in identities(facts, embed)
    # Without the model the shared word is all there is, and it points to the cook.
    assert AMSEL in identities(facts, None)


def test_a_fact_alike_both_holders_joins_neither() -> None:
    plain = fact(40, "Oren was in town on Sunday.", "Oren")
    assert identities([*HOLDERS, plain], embed) == {AMSEL, FERRAND, frozenset({"m040:Oren"})}


def test_a_stated_qualifier_outranks_what_the_fact_is_like() -> None:
    said = fact(5, "Oren Ferrand from the harbour baked bread.", "Oren Ferrand")
    # The chess player was seen last, and more often.
    recent = [fact(d, "Oren Amsel played chess again.", "Oren Amsel") for d in (36, 37, 38)]
    chess = fact(40, "Oren from the harbour studied a rook endgame.", "Oren")
    found = identities([*HOLDERS, said, *recent, chess], embed)
    assert FERRAND | {"m005:Oren Ferrand", "m040:Oren"} in found


def test_likeness_is_the_mean_cosine_with_the_entitys_other_facts_and_survives_a_merge() -> None:
    ws = WorkingSet(msgspec.structs.replace(DEFAULT_POLICY, alike_min_facts=1))
    ws.fact_vectors = unit_rows({"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]})
    one = ws.create("Oren Amsel", "person", T0, is_label=False)
    two = ws.create("Oren", "person", T0, is_label=False)
    ws.note_fact([one], "a")
    ws.note_fact([one], "a")  # once per fact
    ws.note_fact([two], "b")
    ws.note_fact([one, two], "c")
    assert ws.likeness("c", one) == pytest.approx(np.sqrt(0.5))  # c's own fact left out
    assert ws.likeness("b", one) == pytest.approx(np.sqrt(0.5) / 2)
    ws.merge(one, two, None)
    # Facts a, b and c once each, though c named both.
    assert ws.likeness("a", one) == pytest.approx(np.sqrt(0.5) / 2)
    assert ws.likeness("z", one) is None
    assert WorkingSet().likeness("a", one) is None


def test_a_holder_known_by_one_fact_is_not_compared() -> None:
    ws = WorkingSet()
    ws.fact_vectors = unit_rows({"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]})
    one = ws.create("Oren Amsel", "person", T0, is_label=False)
    ws.note_fact([one], "a")
    assert ws.likeness("c", one) is None  # one sentence is not what a person's facts are about
    ws.note_fact([one], "b")
    assert ws.likeness("c", one) == pytest.approx(np.sqrt(0.5))


@pytest.mark.parametrize("order", [1, -1])
def test_a_tie_of_namesakes_is_not_settled_by_company_when_one_of_them_is_re_evaluated(
    order: int,
) -> None:
    # "Mrs. Rua" keeps the husband's company and is about the wife's kitchen: a tie when read.
    # When the husband's entity is re-evaluated later, his names find her, not his wife.
    club = ("Pine Club", "organization")
    facts = [
        typed(1, "Tane Rua won a chess game at the Pine Club.", ("Tane Rua", "person"), club),
        typed(2, "Mere Rua repainted the kitchen.", ("Mere Rua", "person")),
        typed(3, "Tane Rua played chess at the Pine Club again.", ("Tane Rua", "person"), club),
        typed(4, "Mere Rua fixed the kitchen tap.", ("Mere Rua", "person")),
        typed(5, "Mrs. Rua cleaned the kitchen at the Pine Club.", ("Mrs. Rua", "person"), club),
        typed(6, "Tane Rua taught a rook endgame at the Pine Club.", ("Tane Rua", "person"), club),
    ]
    found = identities(facts[::order], embed)
    assert frozenset({"m005:Mrs. Rua"}) in found
    assert frozenset({"m001:Tane Rua", "m003:Tane Rua", "m006:Tane Rua"}) in found
