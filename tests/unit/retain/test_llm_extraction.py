"""Pure parts of LLM extraction: JSON repair, sanitising the model's facts, the prompt."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from app.retain.extract.llm_prompt import build_system_prompt
from app.retain.extract.llm_schema import LlmExtraction, to_extracted_facts
from app.store.json_repair import repair_json


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Here you go:\n{"a": 1}\nHope that helps!', {"a": 1}),
        ('<think>maybe {"a": 0}?</think>{"a": 1}', {"a": 1}),
        ('{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
        (
            "{'a': 'x', 'b': True, 'c': None, 'd': False}",
            {"a": "x", "b": True, "c": None, "d": False},
        ),
        ("{'a': 'Sarah's dog, \"Rex\"'}", {"a": 'Sarah\'s dog, "Rex"'}),
        ("{'a': 'it\\'s'}", {"a": "it's"}),
        ('{a: 1, b_c: "True"}', {"a": 1, "b_c": "True"}),
        ('{"a": 1, // the answer\n "b": 2}', {"a": 1, "b": 2}),
        ('{"a": "line one\nline two"}', {"a": "line one\nline two"}),
        (
            '{"a": "keep, this ,] and True and // inside"}',
            {"a": "keep, this ,] and True and // inside"},
        ),
        ('```\n{"first": 1}\n```\nand finally\n```json\n{"final": 2}\n```', {"final": 2}),
        ('[{"what": "x"},]', [{"what": "x"}]),
        ('```json\n{"a": "truncated fence"}', {"a": "truncated fence"}),
        ('{"a": "日本語 🎉 שלום"}', {"a": "日本語 🎉 שלום"}),
    ],
)
def test_repair_json_recovers_what_weak_models_write(answer: str, expected: object) -> None:
    repaired = repair_json(answer)

    assert repaired is not None
    assert json.loads(repaired) == expected


@pytest.mark.parametrize("answer", ["", "no json here", '{"facts": [{"what": "cut', "{]"])
def test_repair_json_gives_up_on_what_is_not_json(answer: str) -> None:
    assert repair_json(answer) is None


def test_bare_list_and_bare_strings_are_read_as_facts() -> None:
    parsed = LlmExtraction.model_validate_json('["Sarah lives in Paris.", {"text": "Bob cooks."}]')

    facts = to_extracted_facts(parsed)

    assert [f.text for f in facts] == ["Sarah lives in Paris.", "Bob cooks."]


def test_wrong_labels_fall_back_to_defaults_instead_of_failing() -> None:
    parsed = LlmExtraction.model_validate(
        {
            "facts": [
                {"what": "a", "fact_type": "Experience", "fact_kind": " EVENT "},
                {"what": "b", "fact_type": "opinion", "fact_kind": None},
            ]
        }
    )

    first, second = to_extracted_facts(parsed)

    assert (first.fact_type, first.fact_kind) == ("experience", "event")
    assert (second.fact_type, second.fact_kind) == ("world", "conversation")


def test_causal_relations_accept_loose_shapes() -> None:
    parsed = LlmExtraction.model_validate(
        {
            "facts": [
                {"what": "a"},
                {"what": "b", "causal_relations": "0"},
                {"what": "c", "causal_relations": [{"index": 1}, "0", True, "x", None]},
            ]
        }
    )

    assert [f.caused_by for f in to_extracted_facts(parsed)] == [(), (0,), (1, 0)]


def test_entities_are_trimmed_and_deduplicated() -> None:
    parsed = LlmExtraction.model_validate(
        {
            "facts": [
                {
                    "what": "a",
                    "entities": [
                        {
                            "name": " Ocean Probe 1 ",
                            "type": "Product",
                            "aliases": ["OP-1", "op-1 ", ""],
                        },
                        {"name": "ocean probe 1", "type": "product"},
                        {"name": "  "},
                        {"name": "Lisbon", "type": None, "aliases": "Lisboa"},
                        {"name": "Sarah", "aliases": ["sarah", "Sarah Chen"]},
                    ],
                }
            ]
        }
    )

    (fact,) = to_extracted_facts(parsed)

    assert [(e.text, e.type, e.aliases) for e in fact.entities] == [
        ("Ocean Probe 1", "product", ("OP-1", "op-1")),
        ("Lisbon", "", ("Lisboa",)),
        ("Sarah", "", ("Sarah Chen",)),
    ]


def test_placeholder_details_become_none() -> None:
    parsed = LlmExtraction.model_validate(
        {"facts": [{"what": "a", "where": "unknown", "who": " N/A ", "why": "  to rest "}]}
    )

    (fact,) = to_extracted_facts(parsed)

    assert (fact.where, fact.who, fact.why) == (None, None, "to rest")


def test_impossible_dates_are_dropped_not_raised() -> None:
    parsed = LlmExtraction.model_validate(
        {"facts": [{"what": "a", "occurred_start": "2023-02-30", "occurred_end": "2023-13"}]}
    )

    (fact,) = to_extracted_facts(parsed, tz=UTC)

    assert (fact.occurred_start, fact.occurred_end) == (None, None)


def test_an_end_alone_is_kept_without_inventing_a_start() -> None:
    parsed = LlmExtraction.model_validate({"facts": [{"what": "a", "occurred_end": "2020-06-01"}]})

    (fact,) = to_extracted_facts(parsed, tz=UTC)

    assert fact.occurred_start is None
    assert fact.occurred_end == datetime(2020, 6, 1, 23, 59, 59, 999_999, tzinfo=UTC)


def test_prompt_refuses_an_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown LLM extraction mode"):
        build_system_prompt("local", timestamp=None)  # type: ignore[arg-type]
