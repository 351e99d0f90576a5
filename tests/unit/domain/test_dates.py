"""Time expressions resolve against the reference into whole-range UTC spans."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.domain.dates import (
    TimeMention,
    find_time_mentions,
    occurrence,
    parse_query_window,
)

# Monday 8 May 2023, 14:00 UTC: the first LoCoMo session.
REF = datetime(2023, 5, 8, 14, 0, tzinfo=UTC)


def day(year: int, month: int, dom: int) -> datetime:
    return datetime(year, month, dom, tzinfo=UTC)


def end_of(year: int, month: int, dom: int) -> datetime:
    return datetime(year, month, dom, 23, 59, 59, 999999, tzinfo=UTC)


def only(text: str, reference: datetime | None = REF) -> TimeMention:
    mentions = find_time_mentions(text, reference)
    assert len(mentions) == 1, mentions
    return mentions[0]


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("I went to a support group yesterday", day(2023, 5, 7), end_of(2023, 5, 7)),
        ("I moved there in 2015.", day(2015, 1, 1), end_of(2015, 12, 31)),
        ("last spring we hiked", day(2022, 3, 1), end_of(2022, 5, 31)),
        ("I retire in March 2026", day(2026, 3, 1), end_of(2026, 3, 31)),
        ("We met on 8 May, 2023 at the cafe", day(2023, 5, 8), end_of(2023, 5, 8)),
        ("We met on May 8th, 2023", day(2023, 5, 8), end_of(2023, 5, 8)),
        ("We met on Monday, May 8, 2023", day(2023, 5, 8), end_of(2023, 5, 8)),
        ("That was two weeks ago", day(2023, 4, 24), end_of(2023, 4, 30)),
        ("last week was busy", day(2023, 5, 1), end_of(2023, 5, 7)),
        ("see you next Friday", day(2023, 5, 12), end_of(2023, 5, 12)),
        ("music from the 1990s", day(1990, 1, 1), end_of(1999, 12, 31)),
        ("music from the '90s", day(1990, 1, 1), end_of(1999, 12, 31)),
        ("a book from the 1900s", day(1900, 1, 1), end_of(1999, 12, 31)),
        ("back in the 2000s", day(2000, 1, 1), end_of(2009, 12, 31)),
        ("shipped on 2023-05-01", day(2023, 5, 1), end_of(2023, 5, 1)),
        ("a few days ago", day(2023, 5, 4), end_of(2023, 5, 6)),
        ("the day before yesterday", day(2023, 5, 6), end_of(2023, 5, 6)),
        ("tomorrow", day(2023, 5, 9), end_of(2023, 5, 9)),
        ("last month", day(2023, 4, 1), end_of(2023, 4, 30)),
        ("last year", day(2022, 1, 1), end_of(2022, 12, 31)),
        ("this week", day(2023, 5, 8), end_of(2023, 5, 14)),
        ("last weekend we camped", day(2023, 5, 6), end_of(2023, 5, 7)),
        ("last Friday", day(2023, 5, 5), end_of(2023, 5, 5)),
        ("last May", day(2022, 5, 1), end_of(2022, 5, 31)),
        ("early 2015", day(2015, 1, 1), end_of(2015, 4, 30)),
        ("mid-2019", day(2019, 5, 1), end_of(2019, 8, 31)),
        ("the late 90s", day(1996, 1, 1), end_of(1999, 12, 31)),
        ("the summer of 2022", day(2022, 6, 1), end_of(2022, 8, 31)),
        ("winter 2022", day(2022, 12, 1), end_of(2023, 2, 28)),
        ("the past two weeks", day(2023, 4, 24), end_of(2023, 5, 8)),
        ("earlier this year", day(2023, 1, 1), end_of(2023, 5, 8)),
        ("10 years ago", day(2013, 1, 1), end_of(2013, 12, 31)),
        ("the week before 9 June 2023", day(2023, 6, 2), end_of(2023, 6, 8)),
        ("the Sunday before 25 May 2023", day(2023, 5, 21), end_of(2023, 5, 21)),
        ("the day after 8 May 2023", day(2023, 5, 9), end_of(2023, 5, 9)),
        ("from 2015 to 2018", day(2015, 1, 1), end_of(2018, 12, 31)),
        ("between May and July 2023", day(2023, 5, 1), end_of(2023, 7, 31)),
        ("05/08/2023", day(2023, 5, 8), end_of(2023, 5, 8)),
        ("8.5.2023", day(2023, 5, 8), end_of(2023, 5, 8)),
        ("我昨天去了北京", day(2023, 5, 7), end_of(2023, 5, 7)),
        ("2023年5月8日发射", day(2023, 5, 8), end_of(2023, 5, 8)),
        ("去年春天", day(2022, 3, 1), end_of(2022, 5, 31)),
        ("三天前", day(2023, 5, 5), end_of(2023, 5, 5)),
    ],
)
def test_expression_resolves_to_its_whole_range(text: str, start: datetime, end: datetime) -> None:
    mention = only(text)

    assert (mention.start, mention.end) == (start, end)
    assert text[mention.char_start : mention.char_end] == mention.text


@pytest.mark.parametrize(
    "text",
    [
        "I have 2 kids and 3 dogs",
        "2,000 people came",
        "You may go and may not come back",
        "She is in her twenties and in my 30s",
        "A summer dress",
        "I was inspired by autumn",
        "We haven't talked in a few days",
        "two weeks before the wedding",
        "Hey Mel! Good to see you!",
    ],
)
def test_non_time_text_yields_nothing(text: str) -> None:
    assert find_time_mentions(text, REF) == []


def test_last_spring_said_in_summer_is_the_same_years_spring() -> None:
    july = datetime(2023, 7, 10, tzinfo=UTC)

    mention = only("last spring", july)

    assert (mention.start, mention.end) == (day(2023, 3, 1), end_of(2023, 5, 31))


def test_bare_weekday_follows_the_tense() -> None:
    assert only("on Friday I went out").start == day(2023, 5, 5)
    assert only("I will go on Friday").start == day(2023, 5, 12)


def test_bare_month_follows_the_tense() -> None:
    in_july = datetime(2023, 7, 10, tzinfo=UTC)

    assert only("I went there in May", in_july).start == day(2023, 5, 1)
    assert only("I'll go there in May", in_july).start == day(2024, 5, 1)


def test_since_runs_from_the_start_to_the_reference_day() -> None:
    mention = only("I have lived here since 2015")

    assert mention.qualifier == "since"
    assert (mention.start, mention.end) == (day(2015, 1, 1), end_of(2023, 5, 8))


def test_calendar_arithmetic_happens_in_the_references_time_zone() -> None:
    tokyo_morning = datetime(2023, 5, 8, 1, 0, tzinfo=timezone(timedelta(hours=9)))

    mention = only("yesterday", tokyo_morning)

    # 7 May in Tokyo is 6 May 15:00 to 7 May 14:59:59.999999 in UTC.
    assert mention.start == datetime(2023, 5, 6, 15, 0, tzinfo=UTC)
    assert mention.end == datetime(2023, 5, 7, 14, 59, 59, 999999, tzinfo=UTC)


def test_naive_reference_is_treated_as_utc() -> None:
    mention = only("yesterday", datetime(2023, 5, 8, 14, 0))

    assert (mention.start, mention.end) == (day(2023, 5, 7), end_of(2023, 5, 7))
    assert mention.start.tzinfo is UTC


def test_results_are_timezone_aware_utc() -> None:
    mention = only("It happened at 2023-05-01T10:30:00+02:00.")

    assert mention.start == mention.end == datetime(2023, 5, 1, 8, 30, tzinfo=UTC)
    assert mention.start.utcoffset() == timedelta(0)


def test_without_reference_only_absolute_expressions_resolve() -> None:
    mentions = find_time_mentions("Yesterday I read about 8 May 2023 and the year 2015.", None)

    assert [(m.start, m.end) for m in mentions] == [
        (day(2023, 5, 8), end_of(2023, 5, 8)),
        (day(2015, 1, 1), end_of(2015, 12, 31)),
    ]


def test_occurrence_is_the_first_dated_expression() -> None:
    assert occurrence("Yesterday I found photos from 2015", REF) == (
        day(2023, 5, 7),
        end_of(2023, 5, 7),
    )


def test_occurrence_skips_open_ended_expressions() -> None:
    assert occurrence("Before 2015 it was different", REF) is None


def test_occurrence_is_none_without_a_time_expression() -> None:
    assert occurrence("Caroline likes painting", REF) is None


# -- query windows -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "window"),
    [
        ("What did Caroline do last spring?", (day(2022, 3, 1), end_of(2022, 5, 31))),
        ("What happened in May 2023?", (day(2023, 5, 1), end_of(2023, 5, 31))),
        ("Who called yesterday?", (day(2023, 5, 7), end_of(2023, 5, 7))),
        ("What happened between May and July 2023?", (day(2023, 5, 1), end_of(2023, 7, 31))),
        ("What did we do in 2015 and in 2017?", (day(2015, 1, 1), end_of(2017, 12, 31))),
        ("What did she do the week before 9 June 2023?", (day(2023, 6, 2), end_of(2023, 6, 8))),
    ],
)
def test_query_window_covers_the_named_time(query: str, window: tuple[datetime, datetime]) -> None:
    assert parse_query_window(query, REF) == window


@pytest.mark.parametrize(
    "query",
    [
        "When did Melanie paint a sunrise?",
        "What did Caroline do two weeks before the wedding?",
        "What happened the weekend after the party in 2015?",
    ],
)
def test_query_window_is_none_when_nothing_resolvable_is_named(query: str) -> None:
    assert parse_query_window(query, REF) is None


def test_query_window_before_a_date_is_open_ended() -> None:
    window = parse_query_window("What did she do before 2015?", REF)

    assert window is not None
    assert window[0].year == 1
    assert window[1] == end_of(2014, 12, 31)


def test_query_window_after_a_date_is_open_ended() -> None:
    window = parse_query_window("What happened after May 2023?", REF)

    assert window is not None
    assert window[0] == day(2023, 6, 1)
    assert window[1].year == 9999


def test_finding_mentions_is_fast() -> None:
    sentences = [
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
        "Melanie: Hey Caroline! Good to see you! I'm swamped with the kids & work.",
        "I moved from Sweden 4 years ago, and last spring I painted a sunrise.",
        "We're thinking about going camping next month, maybe on 8 June, 2023.",
    ] * 250
    started = time.perf_counter()
    for sentence in sentences:
        find_time_mentions(sentence, REF)
    per_sentence = (time.perf_counter() - started) / len(sentences)

    assert per_sentence < 0.002  # measured ~0.15 ms; the budget is 5 ms for all of extraction
