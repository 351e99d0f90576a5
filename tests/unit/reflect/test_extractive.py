from __future__ import annotations

from datetime import UTC, datetime

from app.recall.budget import estimate_tokens
from app.reflect.extractive import (
    NOTHING,
    Evidence,
    answer,
    date_label,
    is_when_question,
    order,
    select,
)
from app.reflect.pages import offline_page


def fact(i: str, chunk: str | None, day: int | None, month: int = 5, **kw: object) -> Evidence:
    at = datetime(2023, month, day, tzinfo=UTC) if day else None
    said = datetime(2023, 9, 1, tzinfo=UTC) if kw.get("said", True) else None
    return Evidence(
        id=i,
        text=f"fact {i}.",
        type=str(kw.get("type", "world")),
        chunk_id=chunk,
        occurred_start=at,
        mentioned_at=said,
    )


def test_when_questions() -> None:
    assert is_when_question("When did Caroline go to the group?")
    assert is_when_question("what year did she move")
    assert is_when_question("How long ago was the trip?")
    assert not is_when_question("Where does Caroline live?")


def test_select_counts_sources_not_sentences_and_puts_observations_first() -> None:
    facts = [fact("a", "c1", 1), fact("b", "c1", 2), fact("c", "c2", 3), fact("d", "c3", 4)]
    obs = [fact("o", None, None, type="observation")]
    items = select(obs, facts, 3)
    assert [[f.id for f in i.facts] for i in items] == [["o"], ["a", "b"], ["c"]]


def test_a_late_sentence_of_a_quoted_chunk_still_joins_it() -> None:
    items = select([], [fact("a", "c1", 1), fact("c", "c2", 3), fact("b", "c1", 2)], 1)
    assert [f.id for f in items[0].facts] == ["a", "b"]


def test_when_order_is_chronological_with_undated_last() -> None:
    items = select(
        [],
        [fact("late", "c1", 20), fact("none", "c2", None, said=False), fact("early", "c3", 2)],
        5,
    )
    assert [i.facts[0].id for i in order(items, "When was it?")] == ["early", "late", "none"]
    assert [i.facts[0].id for i in order(items, "What was it?")] == ["late", "none", "early"]


def test_date_labels() -> None:
    one = fact("a", None, 8)
    assert date_label(one) == "8 May 2023"
    span = Evidence(
        id="s",
        text="t",
        type="world",
        occurred_start=datetime(2024, 5, 19, tzinfo=UTC),
        occurred_end=datetime(2024, 5, 24, tzinfo=UTC),
    )
    assert date_label(span) == "19–24 May 2024"
    said = Evidence(id="s", text="t", type="world", mentioned_at=datetime(2023, 1, 2, tzinfo=UTC))
    assert date_label(said) == "said 2 January 2023"


def test_answer_quotes_and_cites_every_fact_it_lists_within_the_budget() -> None:
    items = select([], [fact("a", "c1", 1), fact("b", "c1", 2), fact("c", "c2", 3)], 5)
    text, quoted = answer("What happened?", items, max_tokens=1000)
    assert [q.id for q in quoted] == ["a", "b", "c"]
    for q in quoted:
        assert f"{q.text} [{q.id}]" in text
    assert "**1 May 2023**" in text
    head, first_line = text.split("\n\n")[0], text.splitlines()[-2]
    budget = estimate_tokens(head) + estimate_tokens(first_line) + 1
    short, kept = answer("What happened?", items, max_tokens=budget)
    assert [q.id for q in kept] == ["a", "b"]
    assert "[c]" not in short


def test_nothing_found() -> None:
    assert answer("Why?", [], max_tokens=100) == (NOTHING, [])


def test_offline_page_sections_by_month() -> None:
    evidence = [
        fact("a", "c1", 1),
        fact("b", "c2", 3, month=6),
        fact("n", "c3", None, said=False),
        fact("o", None, None, type="observation"),
    ]
    page = offline_page("What happened?", evidence)
    assert [s.id for s in page] == ["overview", "observations", "2023-05", "2023-06", "undated"]
    assert page[2].title == "May 2023" and page[2].memory_ids == ["a"]
    assert "Drawn from 4 memories" in page[0].text
    assert offline_page("Q?", [])[0].id == "overview"
