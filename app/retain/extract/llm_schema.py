"""What LLM extraction asks the model for, and how its answer becomes ``ExtractedFact``s.

The pydantic models are what instructor validates the answer against (lax, tolerant of what
weak models write); :func:`to_extracted_facts` then sanitises them (dates, causal links, empty
facts) into the msgspec Structs every extractor returns. Pydantic stays inside this module and
the client: it is what instructor speaks, not what Mnemo passes around.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, tzinfo
from typing import Any, Final, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from app.domain.facts import EXTRACTED_FACT_TYPES, FACT_KINDS
from app.retain.extract.extracted import ExtractedEntity, ExtractedFact
from app.store.llm import RepairingModel


class LlmEntity(BaseModel):
    """An entity named in a fact."""

    name: str = Field(description="The name exactly as written in the text.")
    type: str = Field(
        default="",
        description="person, organization, place, product, event, work or concept.",
    )
    aliases: list[str] = Field(
        default_factory=list,
        description='Other names the text states for the same thing, e.g. "OP-1" for '
        '"Ocean Probe 1 (OP-1)". Empty when the text states none.',
    )

    @model_validator(mode="before")
    @classmethod
    def _accept_bare_name(cls, data: Any) -> Any:
        # Weak models often list entities as plain strings or call the name "text".
        if isinstance(data, str):
            return {"name": data}
        if isinstance(data, dict) and "name" not in data and "text" in data:
            return {**data, "name": data["text"]}
        return data

    @field_validator("type", mode="before")
    @classmethod
    def _type_text(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("aliases", mode="before")
    @classmethod
    def _aliases_list(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        return value


class LlmFact(BaseModel):
    """One atomic fact, as the model writes it."""

    what: str = Field(
        description="One self-contained statement that still makes sense months later without "
        "the text: name people and things instead of pronouns, keep numbers and qualifiers."
    )
    when: str | None = Field(default=None, description="When it happened, as free text, or null.")
    where: str | None = Field(default=None, description="Where it happened, or null.")
    who: str | None = Field(default=None, description="Who was involved, or null.")
    why: str | None = Field(default=None, description="Why it happened, or null.")
    fact_kind: Literal["event", "conversation"] = Field(
        default="conversation",
        description='"event" for something that happened (or will) at a time; "conversation" '
        "for statements, opinions, preferences, plans and general knowledge.",
    )
    occurred_start: str | None = Field(
        default=None,
        description="ISO 8601 date (YYYY-MM-DD, or with a time) when it started, or null.",
    )
    occurred_end: str | None = Field(
        default=None,
        description="ISO 8601 date when it ended (same as the start for a single day), or null.",
    )
    fact_type: Literal["world", "experience"] = Field(
        default="world",
        description='"experience" for what the assistant itself did, said or experienced; '
        '"world" for everything else.',
    )
    entities: list[LlmEntity] = Field(default_factory=list)
    causal_relations: list[int] = Field(
        default_factory=list,
        description="0-based indexes of EARLIER facts in this list that caused this one.",
    )

    @model_validator(mode="before")
    @classmethod
    def _accept_text_alias(cls, data: Any) -> Any:
        # A bare string is a fact with only "what"; "text"/"fact" are common misnamings of it.
        if isinstance(data, str):
            return {"what": data}
        if isinstance(data, dict) and "what" not in data:
            for key in ("text", "fact", "statement"):
                if isinstance(data.get(key), str):
                    return {**data, "what": data[key]}
        return data

    @field_validator("fact_kind", mode="before")
    @classmethod
    def _kind_label(cls, value: Any) -> Any:
        # A label the model got slightly wrong is not worth a re-ask: fall back to the default.
        label = str(value or "").strip().lower()
        return label if label in FACT_KINDS else "conversation"

    @field_validator("fact_type", mode="before")
    @classmethod
    def _type_label(cls, value: Any) -> Any:
        label = str(value or "").strip().lower()
        return label if label in EXTRACTED_FACT_TYPES else "world"

    @field_validator("entities", mode="before")
    @classmethod
    def _entities_list(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("causal_relations", mode="before")
    @classmethod
    def _causal_indexes(cls, value: Any) -> Any:
        # Accept 2, "2", [2], [{"index": 2}]; anything unreadable is dropped, not re-asked:
        # a lost causal hint costs far less than a failed chunk.
        items = value if isinstance(value, list) else [value]
        indexes: list[int] = []
        for item in items:
            raw = item.get("index", item.get("fact")) if isinstance(item, dict) else item
            if isinstance(raw, bool):
                continue
            if isinstance(raw, int):
                indexes.append(raw)
            elif isinstance(raw, str) and raw.strip().lstrip("-").isdecimal():
                indexes.append(int(raw.strip()))
        return indexes


class LlmExtraction(RepairingModel):
    """The whole answer: the facts of one chunk, in the order they appear."""

    facts: list[LlmFact] = Field(description="The facts, in the order they appear in the text.")

    @model_validator(mode="before")
    @classmethod
    def _accept_bare_list(cls, data: Any) -> Any:
        if isinstance(data, list):
            return {"facts": data}
        if isinstance(data, dict) and "facts" not in data:
            for key, value in data.items():
                if isinstance(key, str) and key.lower() == "facts":
                    return {"facts": value}
        return data


def to_extracted_facts(extraction: LlmExtraction, *, tz: tzinfo = UTC) -> list[ExtractedFact]:
    """Sanitise the model's facts into ``ExtractedFact``s.

    Facts without text are dropped; causal indexes are kept only when they point to an earlier
    fact that survived, and are renumbered to the surviving list; dates are parsed leniently
    (naive ones get ``tz``; a date without a time covers the whole day, a bare year or month its
    whole range); an end before the start is clamped to the start's range.
    """
    kept: dict[int, int] = {}  # model's index -> index in the result
    facts: list[ExtractedFact] = []
    for index, fact in enumerate(extraction.facts):
        text = fact.what.strip()
        if not text:
            continue
        start, end = _occurrence(fact.occurred_start, fact.occurred_end, tz)
        caused_by = tuple(
            dict.fromkeys(kept[i] for i in fact.causal_relations if 0 <= i < index and i in kept)
        )
        kept[index] = len(facts)
        facts.append(
            ExtractedFact(
                text=text,
                fact_type=fact.fact_type,
                fact_kind=fact.fact_kind,
                occurred_start=start,
                occurred_end=end,
                entities=_entities(fact.entities),
                caused_by=caused_by,
                where=_optional_text(fact.where),
                who=_optional_text(fact.who),
                why=_optional_text(fact.why),
            )
        )
    return facts


def _entities(entities: list[LlmEntity]) -> tuple[ExtractedEntity, ...]:
    """Trimmed, de-duplicated entities (by case-folded name); aliases never repeat the name."""
    seen: dict[str, ExtractedEntity] = {}
    for entity in entities:
        name = entity.name.strip()
        key = name.casefold()
        if not name or key in seen:
            continue
        aliases = tuple(
            dict.fromkeys(
                alias.strip()
                for alias in entity.aliases
                if alias.strip() and alias.strip().casefold() != key
            )
        )
        seen[key] = ExtractedEntity(text=name, type=entity.type.strip().lower(), aliases=aliases)
    return tuple(seen.values())


def _optional_text(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip()
    return text if text and text.lower() not in ("null", "none", "unknown", "n/a") else None


def _occurrence(
    start_text: str | None, end_text: str | None, tz: tzinfo
) -> tuple[datetime | None, datetime | None]:
    """Read the fact's (start, end) from the model's date strings; unreadable ones are None."""
    start_range = _date_range(start_text, tz)
    end_range = _date_range(end_text, tz)
    start = start_range[0] if start_range else None
    if end_range is not None:
        end: datetime | None = end_range[1]
    elif start_range is not None:
        end = start_range[1]  # "on 2024-03-03" alone still covers that whole day
    else:
        end = None
    if start is not None and end is not None and end < start:
        # The model swapped or botched the end: the start's own range is the safe reading.
        end = start_range[1] if start_range else start
    return start, end


_YEAR_RE: Final = re.compile(r"^(\d{4})$")
_MONTH_RE: Final = re.compile(r"^(\d{4})-(\d{1,2})$")
_DAY_RE: Final = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")


def _date_range(text: str | None, tz: tzinfo) -> tuple[datetime, datetime] | None:
    """Return the span an ISO-ish date string denotes: a year, a month, a day or one instant."""
    if text is None:
        return None
    value = text.strip()
    try:
        if match := _YEAR_RE.match(value):
            year = int(match[1])
            return _span(year, 1, 1, year, 12, 31, tz)
        if match := _MONTH_RE.match(value):
            year, month = int(match[1]), int(match[2])
            last_day = calendar.monthrange(year, month)[1]
            return _span(year, month, 1, year, month, last_day, tz)
        if match := _DAY_RE.match(value):
            year, month, day = int(match[1]), int(match[2]), int(match[3])
            return _span(year, month, day, year, month, day, tz)
        instant = datetime.fromisoformat(value)
    except ValueError:  # month 13, 30 February, or not a date at all
        return None
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=tz)
    return instant, instant


def _span(
    y1: int, m1: int, d1: int, y2: int, m2: int, d2: int, tz: tzinfo
) -> tuple[datetime, datetime]:
    """From the first instant of one day to the last instant of another."""
    return (
        datetime(y1, m1, d1, tzinfo=tz),
        datetime(y2, m2, d2, 23, 59, 59, 999_999, tzinfo=tz),
    )
