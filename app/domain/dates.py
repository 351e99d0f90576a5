"""Find time expressions in text and resolve them into (start, end) spans.

Pure: the caller passes the reference time (the item's timestamp, or the query's), nothing reads
the clock. Coarse expressions span their whole range: "yesterday" is that whole day, "in 2015"
the whole year, "last spring" March 1 to May 31. Ends are inclusive (23:59:59.999999).

Why regexes first: ``dateparser.search.search_dates`` costs milliseconds per sentence, finds
noise ("yesterday and"), returns points instead of ranges, and cannot read "last spring" or "the
1990s". The rules below cover what conversations and documents say, in microseconds; dateparser
only reads the odd numeric or month-name span the rules matched but could not take apart.

Calendar arithmetic happens in the reference's own time zone ("yesterday" for someone writing
at 01:00+09:00 is their yesterday); the results are converted to UTC. A naive reference is UTC.
Seasons are those of the northern hemisphere (meteorological: spring is March to May).
"""

from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, Literal

import msgspec

from app.errors import InvalidInput

Qualifier = Literal["", "since", "before", "after"]


class DateOutOfRange(InvalidInput):
    """A relative expression resolved against the reference leaves years 1-9999."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(
            detail
            or "a relative date in the text leaves the representable range (years 1 to 9999) "
            "from its reference time (the item's timestamp or the query_timestamp)",
            extra={"field": "timestamp"},
        )


def as_utc(moment: datetime) -> datetime:
    """Read a naive datetime as UTC; convert an aware one to UTC (so comparisons never fail)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


_ONE_DAY = timedelta(days=1)
_ONE_MICROSECOND = timedelta(microseconds=1)


class TimeMention(msgspec.Struct, frozen=True, kw_only=True):
    """A time expression found in a text and the span it resolves to.

    ``char_start``/``char_end`` locate ``text`` in the input. ``qualifier`` says how the span
    relates to what the sentence talks about: "" (it happened then), "since" (from then until the
    reference), "before"/"after" (open-ended; the span is the anchor itself).
    """

    text: str
    char_start: int
    char_end: int
    start: datetime
    end: datetime
    qualifier: Qualifier = ""


# -- internal spans: local naive datetimes, end exclusive -----------------------------------------


@dataclass(frozen=True, slots=True)
class _Span:
    start: datetime
    end: datetime  # exclusive


@dataclass(frozen=True, slots=True)
class _Context:
    ref: datetime | None  # the reference in its own zone, naive
    future: bool  # the sentence speaks of the future ("will", "going to")


def _day(day: date) -> _Span:
    start = datetime(day.year, day.month, day.day)
    return _Span(start, start + _ONE_DAY)


def _days(first: date, last: date) -> _Span:
    return _Span(_day(first).start, _day(last).end)


def _month(year: int, month: int) -> _Span:
    last = calendar.monthrange(year, month)[1]
    return _days(date(year, month, 1), date(year, month, last))


def _year(year: int) -> _Span:
    return _days(date(year, 1, 1), date(year, 12, 31))


def _years(first: int, last: int) -> _Span:
    return _days(date(first, 1, 1), date(last, 12, 31))


def _week(day: date) -> _Span:
    """The Monday-to-Sunday week that contains ``day``."""
    monday = day - timedelta(days=day.weekday())
    return _days(monday, monday + timedelta(days=6))


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _add_years(day: date, years: int) -> date:
    year = day.year + years
    return date(year, day.month, min(day.day, calendar.monthrange(year, day.month)[1]))


# -- vocabulary ----------------------------------------------------------------------------------

# The months and weekdays written out, lower-case, in calendar order.
MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = {name: number for number, name in enumerate(MONTH_NAMES, start=1)} | {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sept": 9, "sep": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_WEEKDAYS = {name: number for number, name in enumerate(WEEKDAY_NAMES)}
_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
# The seasons' names, lower-case ("fall" and "autumn" both).
SEASON_NAMES = tuple(_SEASON_START)
# How many units a quantity word means, as a (fewest, most) range.
_QUANTITIES = {
    "a": (1, 1), "an": (1, 1), "one": (1, 1), "two": (2, 2), "three": (3, 3), "four": (4, 4),
    "five": (5, 5), "six": (6, 6), "seven": (7, 7), "eight": (8, 8), "nine": (9, 9),
    "ten": (10, 10), "eleven": (11, 11), "twelve": (12, 12), "a couple of": (2, 2),
    "a couple": (2, 2), "couple of": (2, 2), "a few": (2, 4), "few": (2, 4), "several": (3, 7),
}  # fmt: skip
_DECADE_WORDS = {
    "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60,
    "seventies": 70, "eighties": 80, "nineties": 90,
}  # fmt: skip
_CJK_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
               "九": 9, "十": 10, "几": 3}  # fmt: skip

_MONTH_RE = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_WEEKDAY_RE = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_SEASON_RE = rf"(?P<season>{'|'.join(SEASON_NAMES)})"
_YEAR_RE = r"(?P<year>1\d{3}|2\d{3})(?![\d'’s])"
_DAY_RE = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
# "Monday, May 8" and "Mon 8 May" are one date, not a weekday and a date.
_WEEKDAY_PREFIX_RE = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)"
    r"\.?,?\s+(?:the\s+)?"
)
_QUANTITY_RE = (
    r"(?P<qty>\d{1,3}|a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|several|an?|one|two|three"
    r"|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)
_UNIT_RE = r"(?P<unit>day|week|month|year|decade)s?"
_PART_RE = r"(?:\s+(?P<part>morning|afternoon|evening|night))?"
_PHASE_WORDS = r"(?:early|mid|late|the\s+(?:beginning|start|end)\s+of)"
_PHASE_RE = rf"(?:(?P<phase>{_PHASE_WORDS})[\s-]+)?"
# Words that may lead a date ("in May", "since 2015"); they are part of the match, and the
# qualifier logic looks inside the match for them.
_LEAD_WORDS = (
    r"in|during|since|from|between|until|till|by|of|around|circa|throughout|through|over|for"
    r"|before|after|prior\s+to|and|to|or"
)
# "by autumn" and "of summer" are more often figurative than times.
_SEASON_LEAD_WORDS = (
    r"in|during|since|from|between|until|till|throughout|through|over|for|before|after|and|to"
)
_LEAD = re.compile(rf"(?:{_LEAD_WORDS})\s+(?:the\s+)?", re.IGNORECASE)

_FUTURE = re.compile(
    r"\b(?:will|won't|shall|going\s+to|gonna|plan(?:s|ning)?\s+to|hop(?:e|ing)\s+to|about\s+to"
    r"|looking\s+forward|can't\s+wait|upcoming|coming\s+up|wanna|want\s+to|intend\s+to"
    r"|thinking\s+(?:about|of)\s+\w+ing)\b|['’]ll\b|将要|打算|计划|准备",
    re.IGNORECASE,
)

# Cheap gate: a sentence without any of these words or digits has no time expression.
_TRIGGER = re.compile(
    r"\d|yesterday|today|tonight|tomorrow|\bago\b|\blast\b|\bnext\b|\bthis\b|\bpast\b|week|month"
    r"|year|day|spring|summer|fall|autumn|winter|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
    r"|mon|tue|wed|thu|fri|sat|sun|ties\b|night|morning|evening|afternoon|recent|earlier|later"
    r"|[昨今明前后去上下本这][天日年周月个]|[天周年月]以?前|星期|周末|[春夏秋冬]",
    re.IGNORECASE,
)


def _quantity(text: str) -> tuple[int, int]:
    word = " ".join(text.lower().split())
    if word.isdecimal():
        return int(word), int(word)
    return _QUANTITIES[word]


def _phase(span: _Span, phase: str | None) -> _Span:
    """Narrow a span to its early / middle / late part ("early 2015", "late May", "mid-90s").

    Decades split into years 0-3 / 3-6 / 6-9, spans of three months or more into thirds of
    whole months, a month into days 1-10 / 11-20 / 21-end.
    """
    if not phase:
        return span
    word = phase.split()[-1].lower()
    part = 0 if word in ("early", "beginning", "start") else 1 if word == "mid" else 2
    first = span.start.date()
    last = (span.end - _ONE_DAY).date()
    if last.year - first.year >= 9:
        return _years(first.year + 3 * part, first.year + 3 * part + 3)
    months = (last.year - first.year) * 12 + last.month - first.month + 1
    if months >= 3:
        third = months // 3
        begin = _add_months(first.replace(day=1), part * third)
        finish = last if part == 2 else _add_months(begin, third) - _ONE_DAY
        return _days(begin, finish)
    begin = first + timedelta(days=10 * part)
    finish = last if part == 2 else min(last, begin + timedelta(days=9))
    return _days(begin, finish)


# -- period arithmetic relative to the reference -------------------------------------------------


def _season(name: str, year: int) -> _Span:
    """The season that starts in ``year`` (winter runs into the next year)."""
    first = _SEASON_START[name.lower()]
    start = date(year, first, 1)
    end = _add_months(start, 3) - _ONE_DAY
    return _days(start, end)


def _season_containing(day: date) -> _Span:
    for name, first in (("winter", 12), ("autumn", 9), ("summer", 6), ("spring", 3)):
        if day.month >= first:
            return _season(name, day.year)
    return _season("winter", day.year - 1)


def _pick_instance(
    make: Callable[[int], _Span], today: date, which: str, future: bool
) -> _Span | None:
    """Choose which year's instance of a recurring period (a season, a month) is meant.

    ``which`` is "last" (the latest that has ended by today), "next" (the first that starts
    after today), "this" (the one under way, else the reference year's), or "" (bare: the latest
    that started by today, or with future tense the first that has not ended).
    """
    candidates = [make(year) for year in range(today.year - 2, today.year + 3)]
    now = _day(today).start
    if which == "this":
        current = [span for span in candidates if span.start <= now < span.end]
        return current[0] if current else make(today.year)
    if which == "last":
        return max((s for s in candidates if s.end <= now), key=lambda s: s.start, default=None)
    if which == "next":
        return min((s for s in candidates if s.start > now), key=lambda s: s.start, default=None)
    if future:
        return min((s for s in candidates if s.end > now), key=lambda s: s.start, default=None)
    return max((s for s in candidates if s.start <= now), key=lambda s: s.start, default=None)


def _relative_period(unit: str, today: date, offset: int) -> _Span:
    """The calendar week / month / year ``offset`` periods away from the one containing today."""
    if unit == "day":
        return _day(today + timedelta(days=offset))
    if unit == "week":
        return _week(today + timedelta(weeks=offset))
    if unit == "month":
        shifted = _add_months(today.replace(day=1), offset)
        return _month(shifted.year, shifted.month)
    if unit == "decade":
        first = (today.year // 10 + offset) * 10
        return _years(first, first + 9)
    return _year(today.year + offset)


def _shift(today: date, unit: str, amount: int) -> date:
    if unit == "day":
        return today + timedelta(days=amount)
    if unit == "week":
        return today + timedelta(weeks=amount)
    if unit == "month":
        return _add_months(today, amount)
    if unit == "decade":
        return _add_years(today, 10 * amount)
    return _add_years(today, amount)


def _unit_span(unit: str, day: date) -> _Span:
    """The whole period of kind ``unit`` that contains ``day``."""
    if unit == "day":
        return _day(day)
    if unit == "week":
        return _week(day)
    if unit == "month":
        return _month(day.year, day.month)
    return _year(day.year)


def _weekend(monday: date) -> _Span:
    return _days(monday + timedelta(days=5), monday + timedelta(days=6))


# -- rules ---------------------------------------------------------------------------------------

_Resolver = Callable[["re.Match[str]", _Context], _Span | None]


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: re.Pattern[str]
    resolve: _Resolver


def _rule(pattern: str, *, flags: int = re.IGNORECASE) -> Callable[[_Resolver], _Rule]:
    def wrap(function: _Resolver) -> _Rule:
        return _Rule(re.compile(pattern, flags), function)

    return wrap


@_rule(
    r"\b(?P<which>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today"
    rf"|tomorrow|tonight|last\s+night|this){_PART_RE}\b"
)
def _named_day(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    which = " ".join(match["which"].lower().split())
    part = (match["part"] or "").lower()
    if which == "this" and not part:
        return None  # "this" alone is not a time
    offsets = {"the day before yesterday": -2, "yesterday": -1, "last night": -1,
               "tomorrow": 1, "the day after tomorrow": 2}  # fmt: skip
    day = ctx.ref.date() + timedelta(days=offsets.get(which, 0))
    if which in ("tonight", "last night"):
        part = "night"
    hours = {"morning": (5, 12), "afternoon": (12, 18), "evening": (17, 24), "night": (18, 30)}
    if part in hours:
        first, last = hours[part]
        start = datetime(day.year, day.month, day.day)
        return _Span(start + timedelta(hours=first), start + timedelta(hours=last))
    return _day(day)


@_rule(rf"\b{_QUANTITY_RE}\s+{_UNIT_RE}\s+(?:ago|back)\b")
def _ago(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    fewest, most = _quantity(match["qty"])
    unit = match["unit"].lower()
    today = ctx.ref.date()
    if unit == "decade":
        return _years(today.year - 10 * most - 2, today.year - 10 * fewest + 2)
    return _Span(
        _unit_span(unit, _shift(today, unit, -most)).start,
        _unit_span(unit, _shift(today, unit, -fewest)).end,
    )


@_rule(rf"\b(?:in|within)\s+{_QUANTITY_RE}\s+{_UNIT_RE}(?:\s+from\s+now)?\b")
def _in_future(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None or match["unit"].lower() == "decade":
        return None
    if not ctx.future and not match.group().lower().endswith("now"):
        # Without future tense "in a few days" is a duration ("haven't talked in a few days").
        return None
    fewest, most = _quantity(match["qty"])
    unit = match["unit"].lower()
    today = ctx.ref.date()
    return _Span(
        _unit_span(unit, _shift(today, unit, fewest)).start,
        _unit_span(unit, _shift(today, unit, most)).end,
    )


@_rule(rf"\b(?:the\s+)?(?:last|past|previous)\s+{_QUANTITY_RE}\s+{_UNIT_RE}\b")
def _rolling(match: re.Match[str], ctx: _Context) -> _Span | None:
    """Rolling windows up to today: "the past two weeks", "the last few days"."""
    if ctx.ref is None or match["unit"].lower() == "decade":
        return None
    most = _quantity(match["qty"])[1]
    today = ctx.ref.date()
    return _Span(_day(_shift(today, match["unit"].lower(), -most)).start, _day(today).end)


@_rule(
    r"\b(?:(?P<the>the\s+)?(?P<which>last|past|previous|this|next|coming|current)\s+)"
    r"(?P<unit>week|weekend|month|year|decade)\b"
)
def _relative_unit(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    which = match["which"].lower()
    unit = match["unit"].lower()
    today = ctx.ref.date()
    if match["the"] and which in ("last", "past") and unit != "weekend":
        # "the past week" is the seven days up to today, not the previous calendar week.
        return _Span(_day(_shift(today, unit, -1)).start, _day(today).end)
    offset = {"last": -1, "past": -1, "previous": -1, "next": 1, "coming": 1}.get(which, 0)
    if unit == "weekend":
        return _weekend(_week(today + timedelta(weeks=offset)).start.date())
    return _relative_period(unit, today, offset)


@_rule(r"\b(?:earlier|later)\s+(?:this|in\s+the)\s+(?P<unit>week|month|year)\b")
def _earlier_later(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    period = _relative_period(match["unit"].lower(), ctx.ref.date(), 0)
    today = _day(ctx.ref.date())
    if match.group().lower().startswith("earlier"):
        return _Span(period.start, today.end)
    return _Span(today.start, period.end)


@_rule(r"\b(?:over|on|at|during|for)\s+the\s+weekend\b")
def _bare_weekend(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    today = ctx.ref.date()
    this_week = _week(today).start.date()
    if ctx.future:
        return _weekend(this_week if today.weekday() < 5 else this_week + timedelta(weeks=1))
    return _weekend(this_week if today.weekday() >= 5 else this_week - timedelta(weeks=1))


@_rule(rf"\b(?:(?P<which>last|this|next|coming|past)\s+)?{_WEEKDAY_RE}\b{_PART_RE}")
def _weekday(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    today = ctx.ref.date()
    target = _WEEKDAYS[match["weekday"].lower()]
    which = (match["which"] or "").lower()
    if which == "this":
        day = _week(today).start.date() + timedelta(days=target)
    elif which in ("next", "coming") or (not which and ctx.future):
        day = today + timedelta(days=(target - today.weekday() - 1) % 7 + 1)
    else:  # "last", "past" or a bare weekday in a sentence about the past
        day = today - timedelta(days=(today.weekday() - target - 1) % 7 + 1)
    return _day(day)


@_rule(
    rf"\b(?:(?P<which>last|this|next|past|previous|coming)\s+"
    rf"|(?P<lead>{_SEASON_LEAD_WORDS})\s+(?:the\s+)?)?"
    rf"{_PHASE_RE}{_SEASON_RE}(?:\s+(?:of\s+)?{_YEAR_RE})?\b"
)
def _season_rule(match: re.Match[str], ctx: _Context) -> _Span | None:
    name = match["season"].lower()
    if match["year"]:
        span = _season(name, int(match["year"]))
    else:
        if ctx.ref is None:
            return None
        which = {"past": "last", "previous": "last", "coming": "next"}.get(
            (match["which"] or "").lower(), (match["which"] or "").lower()
        )
        if not which and not match["lead"]:
            return None  # a bare "summer" is usually not a time ("summer dress")
        picked = _pick_instance(lambda y: _season(name, y), ctx.ref.date(), which, ctx.future)
        if picked is None:
            return None
        span = picked
    return _phase(span, match["phase"])


@_rule(
    rf"\b(?:{_WEEKDAY_PREFIX_RE})?(?:{_DAY_RE}(?:\s+of)?\s+{_MONTH_RE}"
    rf"|{_MONTH_RE.replace('month', 'month2')}\s+(?:the\s+)?(?P<day2>[0-3]?\d)(?:st|nd|rd|th)?"
    rf"(?![\d:]))(?:,?\s+{_YEAR_RE})?\b"
)
def _day_month(match: re.Match[str], ctx: _Context) -> _Span | None:
    month = _MONTHS[(match["month"] or match["month2"]).lower()]
    day = int(match["day"] or match["day2"])
    if match["year"]:
        year = int(match["year"])
    elif ctx.ref is not None:
        year = ctx.ref.year
    else:
        return None
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    return _day(date(year, month, day))


@_rule(rf"\b{_PHASE_RE}{_MONTH_RE}(?:\s+of)?,?\s+{_YEAR_RE}\b")
def _month_year(match: re.Match[str], ctx: _Context) -> _Span | None:
    span = _month(int(match["year"]), _MONTHS[match["month"].lower()])
    return _phase(span, match["phase"])


@_rule(
    rf"\b(?:(?P<which>last|this|next|past|previous|coming)\s+"
    rf"|(?:{_LEAD_WORDS})\s+(?:the\s+month\s+of\s+)?){_PHASE_RE}{_MONTH_RE}(?!\s*\d)\b"
)
def _bare_month(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    if match["month"].islower() and match["month"] in ("may", "march", "mar", "jan", "dec"):
        return None  # lower-case "may" / "march" after "and", "to"... is a verb far more often
    month = _MONTHS[match["month"].lower()]
    which = {"past": "last", "previous": "last", "coming": "next"}.get(
        (match["which"] or "").lower(), (match["which"] or "").lower()
    )
    picked = _pick_instance(lambda y: _month(y, month), ctx.ref.date(), which, ctx.future)
    return None if picked is None else _phase(picked, match["phase"])


@_rule(
    rf"\b(?:(?:{_LEAD_WORDS}|year)\s+(?:the\s+year\s+)?{_PHASE_RE}"
    rf"|(?P<phase0>{_PHASE_WORDS})[\s-]+){_YEAR_RE}"
)
def _year_rule(match: re.Match[str], ctx: _Context) -> _Span | None:
    return _phase(_year(int(match["year"])), match["phase"] or match["phase0"])


@_rule(
    rf"\b(?:the\s+)?{_PHASE_RE}(?:(?P<full>1[5-9]\d0|20\d0)['’]?s|['’]?(?P<short>\d0)['’]?s"
    r"|(?P<word>twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties))\b"
)
def _decade(match: re.Match[str], ctx: _Context) -> _Span | None:
    if match["full"]:
        first = int(match["full"])
        if first % 100 == 0 and first < 2000:
            # "the 1900s" is said of the century far more often than of 1900-1909.
            return _phase(_years(first, first + 99), match["phase"])
    else:
        if not match.group().lower().startswith("the"):
            return None  # "in my 30s", "in her twenties" are ages
        tens = int(match["short"]) if match["short"] else _DECADE_WORDS[match["word"].lower()]
        this_year = ctx.ref.year if ctx.ref is not None else 2000
        century = this_year // 100 * 100
        # The most recent such decade that has begun: "the 90s" is the 1990s.
        first = century + tens if century + tens <= this_year else century - 100 + tens
    return _phase(_years(first, first + 9), match["phase"])


@_rule(
    r"(?<![\d-])(?P<y>\d{4})-(?P<m>\d{2})(?:-(?P<d>\d{2})(?:[T ](?P<H>\d{2}):(?P<M>\d{2})"
    r"(?::(?P<S>\d{2})(?:\.\d+)?)?(?P<tz>Z|[+-]\d{2}:?\d{2})?)?)?(?![\d-])"
)
def _iso(match: re.Match[str], ctx: _Context) -> _Span | None:
    year, month = int(match["y"]), int(match["m"])
    if not (1 <= month <= 12 and 1000 <= year <= 2999):
        return None
    if match["d"] is None:
        return _month(year, month)
    day = int(match["d"])
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    if match["H"] is None:
        return _day(date(year, month, day))
    try:
        instant = datetime.fromisoformat(match.group().replace(" ", "T").replace("Z", "+00:00"))
    except ValueError:
        return None
    return _Span(instant, instant)  # an instant; _to_utc reads an aware one as is


@_rule(r"(?<![\d/.])(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4}|\d{2})(?![\d/.])")
def _numeric(match: re.Match[str], ctx: _Context) -> _Span | None:
    """Numeric dates: "05/08/2023" (US order), "8.5.2023" (day first), read by dateparser."""
    order = "DMY" if match["sep"] == "." else "MDY"
    parsed = _dateparser_date(match.group(), order)
    return None if parsed is None else _day(parsed)


@_rule(
    r"(?P<y>\d{4})\s*年(?:\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*[日号])?)?"
    r"|(?<!\d)(?P<m2>\d{1,2})\s*月\s*(?P<d2>\d{1,2})\s*[日号]",
    flags=0,
)
def _cjk_date(match: re.Match[str], ctx: _Context) -> _Span | None:
    if match["y"]:
        year = int(match["y"])
    elif ctx.ref is not None:
        year = ctx.ref.year
    else:
        return None
    month_text, day_text = match["m"] or match["m2"], match["d"] or match["d2"]
    if month_text is None:
        return _year(year)
    month = int(month_text)
    if not 1 <= month <= 12:
        return None
    if day_text is None:
        return _month(year, month)
    day = int(day_text)
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    return _day(date(year, month, day))


@_rule(
    r"(?P<word>大前天|前天|昨天|昨日|今天|今日|明天|明日|后天|上周末|这周末|本周末|下周末|周末|上周|上星期"
    r"|本周|这周|这星期|下周|下星期|上个月|上月|这个月|本月|下个月|下月|前年|去年|今年|明年|后年)"
    r"(?P<season>春天|夏天|秋天|冬天)?",
    flags=0,
)
def _cjk_relative(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    today = ctx.ref.date()
    word = match["word"]
    days = {"大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "今天": 0, "今日": 0, "明天": 1,
            "明日": 1, "后天": 2}  # fmt: skip
    if word in days:
        return _day(today + timedelta(days=days[word]))
    if word.endswith("周末"):
        offset = {"上": -1, "下": 1}.get(word[0], 0)
        if word == "周末" and not ctx.future:
            offset = 0 if today.weekday() >= 5 else -1
        return _weekend(_week(today + timedelta(weeks=offset)).start.date())
    offset = {"上": -1, "下": 1, "前": -2, "去": -1, "明": 1, "后": 2}.get(word[0], 0)
    if word.endswith(("周", "星期")):
        return _relative_period("week", today, offset)
    if word.endswith("月"):
        return _relative_period("month", today, offset)
    if match["season"]:
        name = {"春天": "spring", "夏天": "summer", "秋天": "autumn", "冬天": "winter"}[
            match["season"]
        ]
        return _season(name, today.year + offset)
    return _relative_period("year", today, offset)


@_rule(
    r"(?P<qty>\d{1,3}|[一二两三四五六七八九十几]{1,3})\s*(?P<unit>天|周|星期|个月|年)(?:以)?前",
    flags=0,
)
def _cjk_ago(match: re.Match[str], ctx: _Context) -> _Span | None:
    if ctx.ref is None:
        return None
    text = match["qty"]
    amount = int(text) if text.isdecimal() else _cjk_number(text)
    unit = {"天": "day", "周": "week", "星期": "week", "个月": "month", "年": "year"}[match["unit"]]
    today = ctx.ref.date()
    return _unit_span(unit, _shift(today, unit, -amount))


def _cjk_number(text: str) -> int:
    """Read small Chinese numerals: 三, 十, 十二, 二十, 二十五."""
    if "十" not in text:
        return _CJK_DIGITS.get(text[-1], 1)
    tens_text, _, ones_text = text.partition("十")
    tens = _CJK_DIGITS.get(tens_text, 1) if tens_text else 1
    return tens * 10 + (_CJK_DIGITS.get(ones_text, 0) if ones_text else 0)


_RULES: tuple[_Rule, ...] = (
    _named_day, _ago, _in_future, _rolling, _relative_unit, _earlier_later, _bare_weekend,
    _weekday, _season_rule, _day_month, _month_year, _bare_month, _year_rule, _decade, _iso,
    _numeric, _cjk_date, _cjk_relative, _cjk_ago,
)  # fmt: skip


# -- dateparser, for the few spans the rules hand over ---------------------------------------------


@functools.lru_cache(maxsize=2)
def _dateparser(order: str) -> Any:
    """One parser per date order, built on first use (building one costs ~100 ms)."""
    from dateparser.date import DateDataParser  # imported late: it is slow to import

    return DateDataParser(
        languages=["en"],
        settings={"DATE_ORDER": order, "PREFER_DAY_OF_MONTH": "first", "STRICT_PARSING": True},
    )


def _dateparser_date(text: str, order: str) -> date | None:
    try:
        data = _dateparser(order).get_date_data(text)
    except (ValueError, OverflowError):
        return None
    parsed = getattr(data, "date_obj", None)
    return parsed.date() if isinstance(parsed, datetime) else None


# -- finding mentions ----------------------------------------------------------------------------

_ANCHORED = re.compile(
    r"\b(?:(?P<qty>\d{1,3}|a\s+couple(?:\s+of)?|a\s+few|several|an?|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|eleven|twelve)\s+(?P<unit>day|week|month|year)s?|the\s+"
    r"(?:(?P<unit1>day|week|month|year)|(?P<weekday>monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)))\s+(?P<rel>before|after|prior\s+to|following)\s*$",
    re.IGNORECASE,
)
_QUALIFIER_BEFORE = re.compile(
    r"\b(?P<word>since|ever\s+since|before|after|prior\s+to|until|till|by)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_RANGE_JOIN = re.compile(
    r"\s*(?:(?:to|until|till|through|and|-|–|—)\s*(?:the\s+)?)?", re.IGNORECASE
)
_RANGE_OPEN = re.compile(r"\b(?:from|between)\s+$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Found:
    start: int
    end: int
    span: _Span
    head: int  # where the match proper begins, after a leading "in", "since", "from"...
    qualifier: Qualifier = ""


def _context(text: str, reference: datetime | None) -> tuple[_Context, tzinfo]:
    if reference is None:
        return _Context(ref=None, future=bool(_FUTURE.search(text))), UTC
    zone = reference.tzinfo or UTC
    local = reference.astimezone(zone) if reference.tzinfo else reference
    return _Context(ref=local.replace(tzinfo=None), future=bool(_FUTURE.search(text))), zone


def _find(text: str, ctx: _Context) -> list[_Found]:
    """All non-overlapping rule matches, longest first, then in text order."""
    matches: list[_Found] = []
    for rule in _RULES:
        for match in rule.pattern.finditer(text):
            if match.end() == match.start():
                continue
            span = rule.resolve(match, ctx)
            if span is not None:
                lead = _LEAD.match(text, match.start(), match.end())
                head = match.start() if lead is None else lead.end()
                matches.append(_Found(match.start(), match.end(), span, head))
    matches.sort(key=lambda f: (f.start - f.end, f.start))
    taken: list[_Found] = []
    for found in matches:
        if all(found.end <= other.start or found.start >= other.end for other in taken):
            taken.append(found)
    taken.sort(key=lambda f: f.start)
    return taken


def _apply_context(text: str, found: list[_Found], ctx: _Context) -> list[_Found]:
    """Fold in the words around each match: anchors, qualifiers, and "from X to Y" ranges.

    The words are read from the text before each match's head, so a lead word the rule itself
    consumed ("since 2015") counts as well as one outside it ("ever since May").
    """
    result: list[_Found] = []
    index = 0
    while index < len(found):
        current = found[index]
        window = max(0, current.head - 60)
        before = text[window : current.head]
        anchored = _ANCHORED.search(before)
        opener = _RANGE_OPEN.search(before)
        qualifier = _QUALIFIER_BEFORE.search(before)
        if anchored is not None:
            current = _anchor(current, window + anchored.start())
            current = _resolve_anchor(current, anchored)
        elif opener is not None and index + 1 < len(found):
            following = found[index + 1]
            if _RANGE_JOIN.fullmatch(text, current.end, following.head):
                current = _Found(
                    min(current.start, window + opener.start()),
                    following.end,
                    _Span(current.span.start, following.span.end),
                    current.head,
                )
                index += 1
        elif qualifier is not None:
            current = _qualify(current, qualifier, window, ctx)
        result.append(current)
        index += 1
    # Widening a match over its context can swallow a neighbour ("the Sunday before 25 May").
    return [
        item
        for item in result
        if not any(
            other is not item and other.start <= item.start and item.end <= other.end
            for other in result
        )
    ]


def _qualify(current: _Found, qualifier: re.Match[str], window: int, ctx: _Context) -> _Found:
    """Apply "since", "before" or "after" in front of a match."""
    word = " ".join(qualifier["word"].lower().split())
    start = min(current.start, window + qualifier.start())
    if word in ("since", "ever since"):
        end = _day(ctx.ref.date()).end if ctx.ref is not None else current.span.end
        return _Found(start, current.end, _Span(current.span.start, end), current.head, "since")
    kind: Qualifier = "after" if word == "after" else "before"
    return _Found(start, current.end, current.span, current.head, kind)


def _anchor(anchor: _Found, start: int) -> _Found:
    return _Found(min(anchor.start, start), anchor.end, anchor.span, anchor.head)


def _resolve_anchor(anchor: _Found, match: re.Match[str]) -> _Found:
    """Resolve "the week before X", "two days after X", "the Sunday before X" against X."""
    start, head = anchor.start, anchor.head
    after = match["rel"].lower() in ("after", "following")
    if match["weekday"]:
        target = _WEEKDAYS[match["weekday"].lower()]
        if after:
            last_day = (anchor.span.end - _ONE_DAY).date()
            day = last_day + timedelta(days=(target - last_day.weekday() - 1) % 7 + 1)
        else:
            first_day = anchor.span.start.date()
            day = first_day - timedelta(days=(first_day.weekday() - target - 1) % 7 + 1)
        return _Found(start, anchor.end, _day(day), head)
    unit = (match["unit"] or match["unit1"]).lower()
    fewest, most = _quantity(match["qty"]) if match["qty"] else (1, 1)
    if after:
        base = anchor.span.end.date()
        return _Found(
            start,
            anchor.end,
            _Span(_day(_shift(base, unit, fewest - 1)).start, _day(_shift(base, unit, most)).start),
            head,
        )
    base = anchor.span.start.date()
    return _Found(
        start,
        anchor.end,
        _Span(_day(_shift(base, unit, -most)).start, _day(_shift(base, unit, 1 - fewest)).start),
        head,
    )


def _to_utc(moment: datetime, zone: tzinfo) -> datetime:
    if moment.tzinfo is not None:
        return moment.astimezone(UTC)
    return moment.replace(tzinfo=zone).astimezone(UTC)


def _mention(text: str, found: _Found, zone: tzinfo) -> TimeMention:
    span = found.span
    instant = span.start == span.end
    return TimeMention(
        text=text[found.start : found.end],
        char_start=found.start,
        char_end=found.end,
        start=_to_utc(span.start, zone),
        end=_to_utc(span.end if instant else span.end - _ONE_MICROSECOND, zone),
        qualifier=found.qualifier,
    )


def find_time_mentions(text: str, reference: datetime | None) -> list[TimeMention]:
    """Every time expression in ``text`` with the span it resolves to, in text order.

    ``reference`` is "now" for the text (the item's timestamp); without it only absolute
    expressions ("in 2015", "8 May 2023") resolve. Expressions relative to something that is
    not a date ("two weeks before the trip") yield nothing.
    """
    if not _TRIGGER.search(text):
        return []
    try:
        ctx, zone = _context(text, reference)
        found = _apply_context(text, _find(text, ctx), ctx)
        return [_mention(text, item, zone) for item in found]
    except OverflowError as exc:
        raise DateOutOfRange() from exc
    except ValueError as exc:
        if "out of range" not in str(exc):
            raise
        raise DateOutOfRange() from exc


def occurrence(text: str, reference: datetime | None) -> tuple[datetime, datetime] | None:
    """When the event a sentence talks about happened: its first time expression's span.

    Open-ended mentions ("before 2015") say nothing precise and are skipped; "since 2015"
    runs from 2015 to the reference.
    """
    for mention in find_time_mentions(text, reference):
        if mention.qualifier in ("", "since"):
            return mention.start, mention.end
    return None


_EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
_LATEST = datetime(9999, 12, 30, tzinfo=UTC)
_UNRESOLVABLE_ANCHOR = re.compile(
    r"\b(?:\d{1,3}|a\s+couple(?:\s+of)?|a\s+few|several|an?|one|two|three|four|five|six|seven"
    r"|eight|nine|ten|eleven|twelve|the)\s+(?:day|week|weekend|month|year|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday)s?\s+(?:before|after|prior\s+to|following)\b",
    re.IGNORECASE,
)


def parse_query_window(query: str, reference: datetime | None) -> tuple[datetime, datetime] | None:
    """The time window a recall query asks about, or None when it names none it can resolve.

    Several expressions widen the window to cover all of them; "before X" / "after X" give an
    open-ended window (from year 1 / to year 9999). A relative expression anchored on something
    that is not a date ("two weeks before the wedding") makes the whole window unknown: None,
    rather than a wrong window that would filter out the answer.
    """
    mentions = find_time_mentions(query, reference)
    for anchor in _UNRESOLVABLE_ANCHOR.finditer(query):
        if not any(m.char_start <= anchor.start() < m.char_end for m in mentions):
            return None
    if not mentions:
        return None
    starts: list[datetime] = []
    ends: list[datetime] = []
    for mention in mentions:
        if mention.qualifier == "before":
            starts.append(_EARLIEST)
            ends.append(mention.start - _ONE_MICROSECOND)
        elif mention.qualifier == "after":
            starts.append(mention.end + _ONE_MICROSECOND)
            ends.append(_LATEST)
        else:
            starts.append(mention.start)
            ends.append(mention.end)
    return min(starts), max(ends)
