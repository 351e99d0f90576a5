"""LLM extraction against a real loopback server speaking OpenAI's chat-completions protocol.

The openai SDK, instructor and the extractor run for real; only the model is scripted: good,
repairable, malformed, wrong-schema, slow and failing answers.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import instructor
import pytest

from app.config import Settings
from app.retain.extract.llm import LlmExtractor
from app.store.llm import LlmClient
from tests.support.fake_openai import (
    FakeOpenAIServer,
    Scripted,
    http_error,
    reply_json,
    reply_text,
    slow,
    unused_port,
)

WRITTEN_AT = datetime(2024, 5, 20, 10, 30, tzinfo=UTC)  # a Monday

CHUNK = (
    "Yesterday Sarah Chen flew to Lisbon for the Ocean Probe 1 (OP-1) launch. "
    "Because the launch slipped, she stayed until Friday. She moved to Paris in 2015."
)

GOOD_ANSWER: dict[str, Any] = {
    "facts": [
        {
            "what": "Sarah Chen flew to Lisbon for the Ocean Probe 1 launch.",
            "when": "yesterday",
            "where": "Lisbon",
            "who": "Sarah Chen",
            "why": "to attend the Ocean Probe 1 launch",
            "fact_kind": "event",
            "occurred_start": "2024-05-19",
            "occurred_end": "2024-05-19",
            "fact_type": "world",
            "entities": [
                {"name": "Sarah Chen", "type": "person", "aliases": []},
                {"name": "Lisbon", "type": "place", "aliases": []},
                {"name": "Ocean Probe 1", "type": "product", "aliases": ["OP-1"]},
            ],
            "causal_relations": [],
        },
        {
            "what": "The Ocean Probe 1 launch slipped.",
            "fact_kind": "event",
            "occurred_start": None,
            "occurred_end": None,
            "fact_type": "world",
            "entities": [{"name": "Ocean Probe 1", "type": "product", "aliases": ["OP-1"]}],
            "causal_relations": [],
        },
        {
            "what": "Sarah Chen stayed in Lisbon until Friday 24 May 2024.",
            "fact_kind": "event",
            "occurred_start": "2024-05-19",
            "occurred_end": "2024-05-24",
            "fact_type": "world",
            "entities": [{"name": "Sarah Chen", "type": "person"}],
            "causal_relations": [1],
        },
        {
            "what": "Sarah Chen moved to Paris in 2015.",
            "fact_kind": "event",
            "occurred_start": "2015-01-01",
            "occurred_end": "2015-12-31",
            "fact_type": "world",
            "entities": [
                {"name": "Sarah Chen", "type": "person"},
                {"name": "Paris", "type": "place"},
            ],
            "causal_relations": [],
        },
    ]
}

ONE_FACT: dict[str, Any] = {"facts": [{"what": "Sarah Chen lives in Paris.", "fact_type": "world"}]}


@asynccontextmanager
async def make_extractor(
    base_url: str, *, timeout_s: float = 5.0, max_retries: int = 2, **options: Any
) -> AsyncIterator[LlmExtractor]:
    settings = Settings(
        llm_base_url=base_url,
        llm_api_key="test-key",
        llm_model="fake-model",
        llm_timeout_s=timeout_s,
        llm_max_retries=max_retries,
    )
    options.setdefault("backoff_s", 0.01)
    async with LlmClient.from_settings(settings, **options) as client:
        yield LlmExtractor(client)


@pytest.fixture
async def extractor(fake_openai: FakeOpenAIServer) -> AsyncIterator[LlmExtractor]:
    async with make_extractor(fake_openai.base_url) as llm:
        yield llm


def day(y: int, m: int, d: int, end: bool = False) -> datetime:
    if end:
        return datetime(y, m, d, 23, 59, 59, 999_999, tzinfo=UTC)
    return datetime(y, m, d, tzinfo=UTC)


# -- good answers -------------------------------------------------------------------------------


async def test_good_answer_becomes_typed_facts_with_dates_entities_and_causal_links(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(reply_json(GOOD_ANSWER, prompt_tokens=321, completion_tokens=123))

    result = await extractor.extract(CHUNK, mode="concise", timestamp=WRITTEN_AT)

    assert result.warnings == ()
    assert result.usage == {"prompt_tokens": 321, "completion_tokens": 123, "total_tokens": 444}
    flight, slip, stay, move = result.facts
    assert flight.text == "Sarah Chen flew to Lisbon for the Ocean Probe 1 launch."
    assert (flight.fact_kind, flight.fact_type) == ("event", "world")
    assert (flight.where, flight.who) == ("Lisbon", "Sarah Chen")
    assert flight.why == "to attend the Ocean Probe 1 launch"
    # A single day covers the whole day.
    assert (flight.occurred_start, flight.occurred_end) == (
        day(2024, 5, 19),
        day(2024, 5, 19, True),
    )
    probe = next(e for e in flight.entities if e.text == "Ocean Probe 1")
    assert (probe.type, probe.aliases) == ("product", ("OP-1",))
    assert [e.text for e in flight.entities] == ["Sarah Chen", "Lisbon", "Ocean Probe 1"]
    assert slip.occurred_start is None and slip.occurred_end is None
    assert stay.caused_by == (1,)
    assert (stay.occurred_start, stay.occurred_end) == (day(2024, 5, 19), day(2024, 5, 24, True))
    assert (move.occurred_start, move.occurred_end) == (day(2015, 1, 1), day(2015, 12, 31, True))
    assert len(fake_openai.requests) == 1


async def test_coarse_and_naive_dates_get_whole_ranges_in_the_item_timezone(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    paris = timezone(timedelta(hours=2))
    fake_openai.script(
        reply_json(
            {
                "facts": [
                    {"what": "A year.", "occurred_start": "2015"},
                    {"what": "A month.", "occurred_start": "2026-02", "occurred_end": "2026-02"},
                    {"what": "A moment.", "occurred_start": "2024-05-19T14:00"},
                    {"what": "Unreadable.", "occurred_start": "last spring", "occurred_end": "?"},
                ]
            }
        )
    )

    result = await extractor.extract(
        "text", mode="concise", timestamp=datetime(2024, 5, 20, tzinfo=paris)
    )

    year, month, moment, unreadable = result.facts
    assert year.occurred_start == datetime(2015, 1, 1, tzinfo=paris)
    assert year.occurred_end == datetime(2015, 12, 31, 23, 59, 59, 999_999, tzinfo=paris)
    assert month.occurred_start == datetime(2026, 2, 1, tzinfo=paris)
    assert month.occurred_end == datetime(2026, 2, 28, 23, 59, 59, 999_999, tzinfo=paris)
    assert moment.occurred_start == moment.occurred_end == datetime(2024, 5, 19, 14, tzinfo=paris)
    assert (unreadable.occurred_start, unreadable.occurred_end) == (None, None)


async def test_end_before_start_is_clamped_to_the_start(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(
        reply_json(
            {
                "facts": [
                    {
                        "what": "Swapped.",
                        "occurred_start": "2024-05-10",
                        "occurred_end": "2024-05-01",
                    }
                ]
            }
        )
    )

    (fact,) = (await extractor.extract("text", mode="concise", timestamp=WRITTEN_AT)).facts

    assert fact.occurred_start == day(2024, 5, 10)
    assert fact.occurred_end == day(2024, 5, 10, True)


async def test_forward_self_and_out_of_range_causal_indexes_are_dropped(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(
        reply_json(
            {
                "facts": [
                    {"what": "First.", "causal_relations": [1, 2]},  # forward: dropped
                    {"what": "Second.", "causal_relations": [1, -1, 0, 0]},  # self, negative, dup
                    {"what": "   ", "causal_relations": [0]},  # empty fact: dropped
                    {"what": "Fourth.", "causal_relations": [2, 1, 99]},  # 2 was dropped, 99 absent
                ]
            }
        )
    )

    result = await extractor.extract("text", mode="verbose", timestamp=WRITTEN_AT)

    assert [f.text for f in result.facts] == ["First.", "Second.", "Fourth."]
    assert [f.caused_by for f in result.facts] == [(), (0,), (1,)]
    assert result.warnings == ()


async def test_repairable_answer_is_accepted_without_a_reask(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    # What weak local models write: reasoning, prose, a fence, single quotes, Python literals,
    # unquoted keys, trailing commas and an apostrophe inside a single-quoted string.
    fake_openai.script(
        reply_text(
            "<think>The user wants facts.</think>\nSure! Here is the JSON:\n```json\n"
            "{'facts': [{what: 'Sarah Chen\\'s dog is called Rex', 'fact_type': 'World',"
            " 'who': None, 'entities': ['Sarah Chen', {'name': 'Rex', 'type': 'animal',},],"
            " 'causal_relations': [],},],}\n```\nLet me know if you need more."
        )
    )

    result = await extractor.extract("Sarah's dog is Rex.", mode="concise", timestamp=WRITTEN_AT)

    assert len(fake_openai.requests) == 1
    assert result.warnings == ()
    (fact,) = result.facts
    assert fact.text == "Sarah Chen's dog is called Rex"
    assert fact.fact_type == "world"
    assert fact.who is None
    assert [(e.text, e.type) for e in fact.entities] == [("Sarah Chen", ""), ("Rex", "animal")]


async def test_trailing_comma_in_a_nested_list_is_repaired_from_the_whole_answer(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    # Instructor's own extraction keeps the last inner object that decodes ({"name": "Paris"});
    # the repair must start again from the whole answer, not from that fragment.
    fake_openai.script(
        reply_text(
            '{"facts": [{"what": "Sarah lives in Paris.", "entities": [{"name": "Paris"}],}]}'
        )
    )

    result = await extractor.extract("Sarah lives in Paris.", mode="concise")

    assert [f.text for f in result.facts] == ["Sarah lives in Paris."]
    assert result.facts[0].entities[0].text == "Paris"
    assert len(fake_openai.requests) == 1


# -- retries with repair --------------------------------------------------------------------------


async def test_malformed_then_good_answer_succeeds_after_a_reask(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(
        reply_text('{"facts": [{"what": "Sarah', prompt_tokens=10, completion_tokens=5),
        reply_json(ONE_FACT, prompt_tokens=20, completion_tokens=7),
    )

    result = await extractor.extract("Sarah lives in Paris.", mode="concise")

    assert [f.text for f in result.facts] == ["Sarah Chen lives in Paris."]
    assert result.warnings == ()
    # Usage counts every answer, the broken one included.
    assert result.usage == {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}
    first, second = fake_openai.requests
    # The re-ask shows the model its broken answer and the parse error.
    assert second.messages[-2] == {"role": "assistant", "content": '{"facts": [{"what": "Sarah'}
    assert "json_invalid" in second.messages[-1]["content"]
    assert second.system_prompt == first.system_prompt


async def test_wrong_schema_is_reasked_with_the_validation_error(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(reply_json({"summary": "Sarah lives in Paris"}), reply_json(ONE_FACT))

    result = await extractor.extract("Sarah lives in Paris.", mode="concise")

    assert [f.text for f in result.facts] == ["Sarah Chen lives in Paris."]
    reask = fake_openai.requests[1].messages[-1]["content"]
    assert "facts" in reask and "Field required" in reask


async def test_always_malformed_keeps_the_chunk_as_one_verbatim_fact_with_a_warning(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.always(reply_text("I am sorry, I cannot produce JSON."))
    chunk = "Zoë met 李雷 at the café 🎉 — שלום.\n\nSecond paragraph."

    result = await extractor.extract(chunk, mode="concise", timestamp=WRITTEN_AT)

    (fact,) = result.facts
    assert fact.text == chunk  # exactly as given, Unicode and all
    assert (fact.fact_type, fact.entities, fact.caused_by) == ("world", (), ())
    (warning,) = result.warnings
    assert "malformed or invalid output after 3 answers" in warning
    assert "verbatim" in warning
    assert len(fake_openai.requests) == 3  # the first try and llm_max_retries = 2 re-asks
    assert result.usage["total_tokens"] == 3 * 150


async def test_always_wrong_schema_keeps_the_chunk_verbatim(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.always(reply_json({"facts": "none"}))

    result = await extractor.extract("Some text.", mode="concise")

    assert [f.text for f in result.facts] == ["Some text."]
    assert "malformed or invalid output" in result.warnings[0]


async def test_answer_cut_off_at_the_token_limit_keeps_the_chunk_verbatim(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(reply_text('{"facts": [{"what": "Sa', finish_reason="length"))

    result = await extractor.extract("Some text.", mode="concise")

    assert [f.text for f in result.facts] == ["Some text."]
    assert "cut off at the token limit" in result.warnings[0]


# -- endpoint failures ----------------------------------------------------------------------------


async def test_slow_answer_times_out_and_keeps_the_chunk_verbatim(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.always(slow(10, reply_json(ONE_FACT)))

    async with make_extractor(fake_openai.base_url, timeout_s=0.3) as llm:
        started = time.monotonic()
        result = await llm.extract("Some text.", mode="concise")
        elapsed = time.monotonic() - started

    assert elapsed < 3
    assert [f.text for f in result.facts] == ["Some text."]
    assert "timed out after 0.3 s" in result.warnings[0]
    assert len(fake_openai.requests) == 1  # a timeout is not retried: it already took long


async def test_the_overall_deadline_bounds_one_extraction(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.always(slow(10, reply_json(ONE_FACT)))

    async with make_extractor(fake_openai.base_url, timeout_s=30, deadline_s=0.3) as llm:
        started = time.monotonic()
        result = await llm.extract("Some text.", mode="concise")

    assert time.monotonic() - started < 3
    assert [f.text for f in result.facts] == ["Some text."]
    assert "deadline" in result.warnings[0]


async def test_http_500_is_retried_then_keeps_the_chunk_verbatim(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.always(http_error(500))

    result = await extractor.extract("Some text.", mode="concise")

    assert [f.text for f in result.facts] == ["Some text."]
    assert "HTTP 500" in result.warnings[0]
    assert len(fake_openai.requests) == 3
    assert result.usage["total_tokens"] == 0


async def test_one_http_503_then_a_good_answer_recovers(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(http_error(503), reply_json(ONE_FACT))

    result = await extractor.extract("Sarah lives in Paris.", mode="concise")

    assert [f.text for f in result.facts] == ["Sarah Chen lives in Paris."]
    assert result.warnings == ()


async def test_client_errors_are_not_retried_but_still_keep_the_chunk(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.always(http_error(401, content="invalid api key"))

    result = await extractor.extract("Some text.", mode="concise")

    assert [f.text for f in result.facts] == ["Some text."]
    assert "HTTP 401" in result.warnings[0] and "invalid api key" in result.warnings[0]
    assert len(fake_openai.requests) == 1


async def test_connection_refused_keeps_the_chunk_verbatim() -> None:
    async with make_extractor(f"http://127.0.0.1:{unused_port()}/v1", max_retries=1) as llm:
        result = await llm.extract("Some text.", mode="concise")

    assert [f.text for f in result.facts] == ["Some text."]
    assert "could not reach the LLM endpoint" in result.warnings[0]


# -- what the model is told -----------------------------------------------------------------------


async def test_mission_timestamp_context_and_text_are_sent(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(reply_json(ONE_FACT))

    await extractor.extract(
        CHUNK,
        mode="concise",
        timestamp=WRITTEN_AT,
        context="a chat between the user and the assistant",
        mission="Remember the travel plans of the team.",
    )

    (request,) = fake_openai.requests
    assert request.body["model"] == "fake-model"
    assert request.headers.get("authorization") == "Bearer test-key"
    system = request.system_prompt
    assert "Remember the travel plans of the team." in system
    assert "Keep only the facts that serve this mission" in system
    assert "2024-05-20T10:30:00+00:00" in system and "Monday, 20 May 2024" in system
    assert "a chat between the user and the assistant" in system
    assert '"in 2015" is 2015-01-01 to 2015-12-31' in system
    assert "few, dense facts" in system
    assert '"causal_relations"' in system  # the JSON schema instructor appends
    assert CHUNK in request.all_text


async def test_each_mode_sends_its_own_guidance(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.always(reply_json(ONE_FACT))

    await extractor.extract("t", mode="verbose")
    await extractor.extract("t", mode="verbatim")
    await extractor.extract("t", mode="custom", custom_instructions="Only keep recipes.")
    result = await extractor.extract("t", mode="custom")

    verbose, verbatim, custom, custom_empty = (r.system_prompt for r in fake_openai.requests)
    assert "every detail worth remembering" in verbose
    assert "exactly as written" in verbatim
    assert "Only keep recipes." in custom
    assert "few, dense facts" in custom_empty
    assert "without retain_custom_instructions" in result.warnings[0]


async def test_unknown_time_of_writing_is_said_in_the_prompt(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(reply_json(ONE_FACT))

    await extractor.extract("t", mode="concise", timestamp=None)

    assert "When the text was written is unknown" in fake_openai.requests[0].system_prompt


# -- empty answers -------------------------------------------------------------------------------


async def test_no_facts_on_purpose_is_kept_empty_with_a_warning(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(reply_json({"facts": []}))

    result = await extractor.extract("Hi! How are you?", mode="concise", mission="Recipes only.")

    assert result.facts == ()
    assert "kept no fact" in result.warnings[0] and "retain_mission" in result.warnings[0]


async def test_facts_without_text_or_empty_verbatim_keep_the_chunk(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    fake_openai.script(reply_json({"facts": [{"what": "  "}]}), reply_json({"facts": []}))

    blank = await extractor.extract("Some text.", mode="concise")
    verbatim = await extractor.extract("Other text.", mode="verbatim")

    assert [f.text for f in blank.facts] == ["Some text."]
    assert [f.text for f in verbatim.facts] == ["Other text."]
    assert "no usable fact" in blank.warnings[0] and "no usable fact" in verbatim.warnings[0]


async def test_blank_chunk_makes_no_request(
    fake_openai: FakeOpenAIServer, extractor: LlmExtractor
) -> None:
    result = await extractor.extract(" \n\t", mode="concise")

    assert result.facts == () and result.warnings == ()
    assert fake_openai.requests == []


# -- other instructor modes ---------------------------------------------------------------------


async def test_tools_mode_works_against_the_fake_server(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(reply_json(ONE_FACT))

    async with make_extractor(fake_openai.base_url, instructor_mode=instructor.Mode.TOOLS) as llm:
        result = await llm.extract("Sarah lives in Paris.", mode="concise")

    assert [f.text for f in result.facts] == ["Sarah Chen lives in Paris."]
    assert fake_openai.requests[0].body["tool_choice"]["function"]["name"] == "LlmExtraction"


def test_scripted_answers_are_used_in_order_then_the_default(
    fake_openai: FakeOpenAIServer,
) -> None:
    import httpx

    fake_openai.script(reply_text("one"), http_error(502))
    fake_openai.always(Scripted(content="default"))
    url = f"{fake_openai.base_url}/chat/completions"
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}

    with httpx.Client() as client:
        answers = [client.post(url, json=body) for _ in range(3)]

    assert [a.status_code for a in answers] == [200, 502, 200]
    assert answers[0].json()["choices"][0]["message"]["content"] == "one"
    assert answers[0].json()["object"] == "chat.completion"
    assert answers[2].json()["choices"][0]["message"]["content"] == "default"
    assert fake_openai.pending == 0 and len(fake_openai.requests) == 3
