"""Offline decisions and the invariants every decision is applied under (pure, no database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from app.consolidate.claims import Claim
from app.consolidate.invariants import Refused, Workset, check_decision
from app.consolidate.llm import Labels, LlmAction, LlmDecision, messages, to_decision
from app.consolidate.model import (
    Candidates,
    Create,
    Decision,
    Delete,
    EntityRef,
    FactView,
    ObservationView,
    Update,
)
from app.consolidate.offline import decide_offline, most_complete
from app.consolidate.service import retry_delay

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def fact(fid: str, text: str, day: int = 0, **kw: object) -> FactView:
    at = T0 + timedelta(days=day)
    values: dict[str, object] = {
        "id": fid,
        "text": text,
        "fact_type": "world",
        "occurred_start": at,
        "occurred_end": at,
        "mentioned_at": at,
        "entities": (EntityRef("e1", "Ana Ruiz", "Ana Ruiz"),),
    }
    values.update(kw)
    return FactView(**values)  # type: ignore[arg-type]


def plain_claim(**kw: object) -> Claim:
    values: dict[str, object] = {
        "numbers": frozenset({2.0}),
        "times": frozenset(),
        "negated": (),
        "entities": frozenset({"ana ruiz"}),
        "subjects": frozenset({"ana ruiz"}),
        "things": frozenset({"dog"}),
        "words": frozenset({"dog", "have"}),
        "content": 3,
    }
    values.update(kw)
    return Claim(**values)  # type: ignore[arg-type]


def unit(*values: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float32)
    return v / np.linalg.norm(v)


# Three close vectors (restatements) and one far away.
CLOSE = {"a": unit(1, 0.1, 0), "b": unit(1, 0.12, 0.02), "c": unit(1, 0.05, 0.05)}
FAR = unit(0, 1, 0)


def test_a_fact_stated_once_creates_nothing() -> None:
    a = fact("a", "Ana Ruiz has two dogs.")
    decision = decide_offline(Candidates(fact=a), {"a": CLOSE["a"]}, {"a": plain_claim()})
    assert decision.actions == ()


def test_two_restatements_create_an_observation_worded_by_the_most_complete() -> None:
    a = fact("a", "Ana Ruiz has two dogs.")
    b = fact("b", "Ana Ruiz is the owner of two dogs.", day=3)
    claims = {"a": plain_claim(), "b": plain_claim()}
    decision = decide_offline(Candidates(fact=a, facts=(b,)), CLOSE, claims)
    [create] = decision.actions
    assert isinstance(create, Create)
    assert create.source_ids == ("a", "b")
    assert create.text == "Ana Ruiz is the owner of two dogs."


@pytest.mark.parametrize(
    "other",
    [
        {"numbers": frozenset({3.0})},
        {"negated": ("have",)},
        {"things": frozenset({"cat"}), "words": frozenset({"cat", "have"})},
        {"entities": frozenset({"ana ruiz", "ben"}), "subjects": frozenset({"ben"})},
    ],
)
def test_a_conflicting_claim_is_not_joined(other: dict[str, object]) -> None:
    a = fact("a", "Ana Ruiz has two dogs.")
    b = fact("b", "Ana Ruiz has three dogs.", day=3)
    claims = {"a": plain_claim(), "b": plain_claim(**other)}
    assert decide_offline(Candidates(fact=a, facts=(b,)), CLOSE, claims).actions == ()


def test_distant_facts_or_other_tags_or_entities_are_not_joined() -> None:
    a = fact("a", "Ana Ruiz has two dogs.")
    claims = {"a": plain_claim(), "b": plain_claim()}
    far = fact("b", "Ana Ruiz owns 2 dogs.")
    assert (
        decide_offline(
            Candidates(fact=a, facts=(far,)), {"a": CLOSE["a"], "b": FAR}, claims
        ).actions
        == ()
    )
    tagged = fact("b", "Ana Ruiz owns 2 dogs.", tags=("work",))
    assert decide_offline(Candidates(fact=a, facts=(tagged,)), CLOSE, claims).actions == ()
    other = fact("b", "Ana Ruiz owns 2 dogs.", entities=(EntityRef("e2", "Ben Okafor"),))
    assert decide_offline(Candidates(fact=a, facts=(other,)), CLOSE, claims).actions == ()


def test_a_restatement_joins_the_observation_it_restates_every_source_of() -> None:
    a, b = fact("a", "Ana Ruiz has two dogs."), fact("b", "Ana Ruiz owns 2 dogs.", day=1)
    c = fact("c", "Ana Ruiz is the owner of two dogs.", day=9)
    observation = ObservationView(id="o1", text=a.text, sources=(a, b))
    claims = {i: plain_claim() for i in "abc"}
    decision = decide_offline(Candidates(fact=c, observations=(observation,)), CLOSE, claims)
    [update] = decision.actions
    assert isinstance(update, Update)
    assert update.observation_id == "o1" and update.source_ids == ("c",)
    assert update.text == c.text
    # One source it does not restate keeps it out (complete linkage).
    claims["b"] = plain_claim(numbers=frozenset({3.0}))
    assert (
        decide_offline(Candidates(fact=c, observations=(observation,)), CLOSE, claims).actions == ()
    )


def test_a_fact_left_alone_in_its_observation_retracts_it() -> None:
    a = fact("a", "Ana Ruiz has two dogs.")
    lonely = ObservationView(id="o1", text=a.text, sources=(a,))
    decision = decide_offline(Candidates(fact=a, observations=(lonely,)), CLOSE, {})
    assert decision.actions == (
        Delete(observation_id="o1", reason="fewer than 2 facts support it"),
    )


def test_most_complete_prefers_more_words_then_length_then_first() -> None:
    short, long_ = fact("a", "Ana has dogs."), fact("b", "Ana Ruiz has two dogs.")
    assert most_complete([short, long_]) == long_.text
    assert (
        most_complete([fact("x", "Ana has cats."), fact("y", "Ana has dogs.")]) == "Ana has cats."
    )


def test_decisions_citing_anything_outside_the_candidates_are_refused() -> None:
    a, b = fact("a", "x"), fact("b", "y")
    candidates = Candidates(fact=a, facts=(b,), observations=(ObservationView(id="o1", text="z"),))
    check_decision(
        Decision(fact_id="a", actions=(Create(text="t", source_ids=("a", "b")),)), candidates
    )
    for action in (
        Create(text="t", source_ids=("a", "zz")),
        Update(observation_id="o2"),
        Delete(observation_id="o9"),
        Create(text="  ", source_ids=("a",)),
    ):
        with pytest.raises(Refused):
            check_decision(Decision(fact_id="a", actions=(action,)), candidates)
    with pytest.raises(Refused):
        check_decision(Decision(fact_id="b"), candidates)


def test_updates_only_add_sources_widen_time_and_record_each_rewrite() -> None:
    a = fact("a", "Ana Ruiz has two dogs.", day=5)
    b = fact("b", "Ana Ruiz owns 2 dogs.", day=10)
    early = fact("c", "Ana Ruiz owns two dogs.", day=1)
    observation = ObservationView(
        id="o1",
        text=a.text,
        occurred_start=a.occurred_start,
        occurred_end=b.occurred_end,
        mentioned_at=b.mentioned_at,
        sources=(a, b),
    )
    work = Workset()
    # A model that "drops" a source and rewrites: the sources stay a union.
    work.apply(
        Decision(fact_id="c", actions=(Update(observation_id="o1", text="Ana owns two dogs."),)),
        Candidates(fact=early, observations=(observation,)),
        T0,
        lambda: "new",
    )
    state = work.observations["o1"]
    assert state.source_ids == ("a", "b", "c")
    assert state.occurred_start == early.occurred_start and state.occurred_end == b.occurred_end
    assert state.mentioned_at == b.mentioned_at
    [revision] = work.revisions
    assert revision.kind == "update"
    assert revision.before == {
        "text": a.text,
        "source_memory_ids": ["a", "b"],
        "proof_count": 2,
    }
    assert revision.after["proof_count"] == 3 and revision.after["text"] == "Ana owns two dogs."


def test_created_observations_take_the_new_fact_and_are_seen_by_later_decisions() -> None:
    a, b = fact("a", "Ana Ruiz has two dogs."), fact("b", "Ana Ruiz owns 2 dogs.", day=2)
    work = Workset()
    work.apply(
        Decision(fact_id="b", actions=(Create(text=b.text, source_ids=("a",)),)),
        Candidates(fact=b, facts=(a,)),
        T0,
        lambda: "o-new",
    )
    view = work.view("o-new")
    assert view.source_ids == ("a", "b")
    assert (view.occurred_start, view.occurred_end) == (a.occurred_start, b.occurred_end)
    assert [r.kind for r in work.revisions] == ["create"]


def test_llm_labels_map_back_to_ids_and_unknown_labels_are_refused() -> None:
    a, b = fact("fact-a", "Ana Ruiz owns 2 dogs."), fact("fact-b", "Ana Ruiz has two dogs.")
    source = fact("fact-s", "Ana Ruiz has dogs.")
    candidates = Candidates(
        fact=a,
        facts=(b,),
        observations=(
            ObservationView(id="obs-1", text="Ana Ruiz has two dogs.", sources=(source,)),
        ),
    )
    labels = Labels(candidates)
    text = messages(candidates, labels, "pets of the user")[1]["content"]
    assert "NEW fact: Ana Ruiz owns 2 dogs." in text and "O1: Ana Ruiz has two dogs." in text
    assert "F1: Ana Ruiz has two dogs." in text and "F2: Ana Ruiz has dogs." in text
    answer = LlmDecision(
        actions=[LlmAction(action="update", observation_id="O1", source_fact_ids=["F1", "NEW"])]
    )
    decision = to_decision(answer, candidates, labels)
    assert decision.actions == (
        Update(observation_id="obs-1", text=None, source_ids=("fact-b", "fact-a")),
    )
    for bad in (
        LlmAction(action="update", observation_id="O7"),
        LlmAction(action="create", text="x", source_fact_ids=["F9"]),
        LlmAction(action="create", text=""),
        LlmAction(action="delete", observation_id=None),
    ):
        with pytest.raises(Refused):
            to_decision(LlmDecision(actions=[bad]), candidates, labels)


def test_failed_facts_are_retried_with_doubling_capped_backoff() -> None:
    assert [retry_delay(n).total_seconds() for n in (1, 2, 3)] == [30, 60, 120]
    assert retry_delay(30).total_seconds() == 3600


def test_an_observation_read_in_part_keeps_every_source_and_its_best_wording() -> None:
    # A batch reads an observation's most recent sources only; the others are ids. A joining
    # fact is compared with those read, the text stays the most complete wording unless the
    # new fact says more, and the union (and proof_count) counts the unread sources too.
    a = fact("a", "Ana Ruiz has two dogs.", day=1)
    b = fact("b", "Ana Ruiz owns 2 dogs.", day=2)
    c = fact("c", "Ana has 2 dogs.", day=9)
    observation = ObservationView(
        id="o1",
        text="Ana Ruiz is the owner of two dogs.",
        sources=(a, b),
        unread_ids=("old-1", "old-2"),
    )
    assert observation.source_ids == ("a", "b", "old-1", "old-2")
    claims = {i: plain_claim() for i in "abc"}
    candidates = Candidates(fact=c, observations=(observation,))
    decision = decide_offline(candidates, CLOSE, claims)
    [update] = decision.actions
    assert isinstance(update, Update) and update.text is None and update.source_ids == ("c",)
    work = Workset()
    work.apply(decision, candidates, T0, lambda: "new")
    assert work.observations["o1"].source_ids == ("a", "b", "c", "old-1", "old-2")
    [revision] = work.revisions
    assert revision.after["proof_count"] == 5
    assert work.view("o1").unread_ids == ("old-1", "old-2")
    # Queued again, the fact keeps the text: the wording may come from a source not read.
    again = ObservationView(id="o1", text=observation.text, sources=(a, c), unread_ids=("old-1",))
    assert decide_offline(Candidates(fact=c, observations=(again,)), CLOSE, claims).actions == ()
