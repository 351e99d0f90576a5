"""LLM extraction: one chunk of text becomes typed facts through any OpenAI-compatible endpoint.

The bank's extraction mode picks the guidance (``concise``, ``verbose``, ``custom``,
``verbatim``); its ``retain_mission`` narrows what is kept. The model answers one JSON object that
instructor validates against a pydantic schema; this module then sanitises it (dates, causal
links, empty facts) and hands the pipeline the same msgspec ``ExtractionResult`` every extractor
returns. Pydantic stays inside this module: it is what instructor speaks, not what Mnemo passes
around.

Instructor mode: ``MD_JSON``. The schema goes into the system prompt and the answer is plain
chat text holding one JSON object (fenced or not). It is the one structured mode that asks nothing
of the server, and the spread of servers is the point here:

* ``JSON`` sends ``response_format={"type": "json_object"}``, which LM Studio rejects with HTTP
  400 ("'response_format.type' must be 'json_schema' or 'text'");
* ``TOOLS`` forces a tool call, which needs a model whose chat template knows tools (Ollama answers
  400 "does not support tools" for many small models) and, on vLLM, tool-calling server flags;
* plain text works on vLLM, Ollama, LM Studio, llama.cpp and OpenAI alike.

What it gives up, constrained decoding, is bought back by robustness: tolerant parsing (code
fences, ``<think>`` blocks, trailing commas, single quotes, Python literals, unquoted keys, a bare
list) before instructor re-asks with the validation error, a per-call timeout, retries of
transient HTTP failures, and a last resort that keeps the chunk as one verbatim fact with a
warning. Content is never dropped silently. Another mode can be passed to ``LlmExtractor`` for a
server known to support it.
"""

from __future__ import annotations

import asyncio
import calendar
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any, Final, Literal, Self, get_args

import instructor
import openai
from instructor.core.exceptions import (
    IncompleteOutputException,
    InstructorError,
    InstructorRetryException,
)
from instructor.core.hooks import Hooks
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator
from pydantic.config import ExtraValues

from app.config import Settings
from app.domain.facts import EXTRACTED_FACT_TYPES, FactKind
from app.errors import Unavailable
from app.retain.extracted import ExtractedEntity, ExtractedFact, ExtractionResult

__all__ = [
    "DEFAULT_INSTRUCTOR_MODE",
    "LLM_MODES",
    "LlmEntity",
    "LlmExtraction",
    "LlmExtractor",
    "LlmFact",
    "LlmMode",
    "build_system_prompt",
    "repair_json",
    "to_extracted_facts",
]

logger = logging.getLogger(__name__)

LlmMode = Literal["concise", "verbose", "custom", "verbatim"]
LLM_MODES: Final = frozenset(get_args(LlmMode))

# See the module docstring: the mode that works with the widest range of servers.
DEFAULT_INSTRUCTOR_MODE: Final = instructor.Mode.MD_JSON

# Key under which a call's log travels in instructor's validation context to the JSON repair.
_CALL_KEY: Final = "mnemo_llm_call"


# -- response schema (what the model is asked for) ----------------------------------------------


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
        return label if label in get_args(FactKind) else "conversation"

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
            elif isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
                indexes.append(int(raw.strip()))
        return indexes


class LlmExtraction(BaseModel):
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

    @classmethod
    def model_validate_json(
        cls,
        json_data: str | bytes | bytearray,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """Validate the model's whole answer, repairing it first when it is not clean JSON.

        Instructor passes the JSON span it cut out of the answer: the last span that decodes.
        With one trailing comma the whole object does not decode and that span is an inner
        fragment (``[]`` or one entity), which could even validate, as no facts at all. So the
        answer is read again in full from the call log that travels in ``context``; instructor's
        span is used only when there is no log. When the repaired answer still fails, its error
        describes the whole answer, so that instructor's re-ask tells the model what to fix.
        """
        options: dict[str, Any] = {
            "strict": strict,
            "extra": extra,
            "context": context,
            "by_alias": by_alias,
            "by_name": by_name,
        }
        call = context.get(_CALL_KEY) if isinstance(context, dict) else None
        raw = call.raw_text if isinstance(call, _CallLog) else None
        answer = raw if raw is not None else _as_text(json_data)
        try:
            return super().model_validate_json(answer, **options)
        except ValidationError:
            repaired = repair_json(answer)
            if repaired is None or repaired == answer:
                raise
            logger.debug("LLM answer was not clean JSON; validating the repaired text")
            return super().model_validate_json(repaired, **options)


def _as_text(data: str | bytes | bytearray) -> str:
    return data if isinstance(data, str) else bytes(data).decode("utf-8", errors="replace")


# -- JSON repair ----------------------------------------------------------------------------------

_THINK_RE: Final = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE_RE: Final = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_LITERALS: Final = {"True": "true", "False": "false", "None": "null"}


def repair_json(text: str) -> str | None:
    """Recover one JSON value from a weak model's answer, or None when there is none.

    Handles, in order: ``<think>`` blocks of reasoning models, Markdown code fences, prose
    around the JSON, then, outside strings, trailing commas, single-quoted strings, Python
    ``True``/``False``/``None``, unquoted keys and ``//`` comments. Raw newlines inside strings are
    accepted. The result is compact, valid JSON.
    """
    text = _THINK_RE.sub("", text)
    for candidate in _json_candidates(text):
        for attempt in (candidate, _normalise_json(candidate)):
            try:
                value = json.loads(attempt, strict=False)
            except json.JSONDecodeError:
                continue
            if isinstance(value, (dict, list)):
                return json.dumps(value, ensure_ascii=False)
    return None


def _json_candidates(text: str) -> Iterator[str]:
    """Spans that may hold the JSON: fenced blocks, the last first, then the whole text.

    The last block wins, as in instructor: a model's final answer comes after any JSON it
    quoted from the text while reasoning.
    """
    for block in reversed(_FENCE_RE.findall(text)):
        span = _outer_span(block)
        if span is not None:
            yield span
    span = _outer_span(text)
    if span is not None:
        yield span


def _outer_span(text: str) -> str | None:
    """From the first ``{`` or ``[`` to the last matching closer (prose around it dropped)."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    return text[start : end + 1] if end > start else None


def _normalise_json(text: str) -> str:
    """Rewrite JSON-like text into JSON, touching nothing inside double-quoted strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            end = _scan_double_quoted(text, i)
            out.append(text[i:end])
            i = end
        elif char == "'":
            literal, i = _single_to_double_quoted(text, i)
            out.append(literal)
        elif char == ",":
            i += 1
            if _next_significant(text, i) not in ("}", "]"):
                out.append(",")  # a trailing comma before a closer is dropped
        elif char == "/" and text.startswith("//", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
        elif char.isalpha() or char == "_":
            end = i
            while end < n and (text[end].isalnum() or text[end] == "_"):
                end += 1
            word = text[i:end]
            if _next_significant(text, end) == ":" and word not in _LITERALS:
                out.append(json.dumps(word))  # an unquoted key
            else:
                out.append(_LITERALS.get(word, word))
            i = end
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _scan_double_quoted(text: str, start: int) -> int:
    """Index just past the string that opens at ``start`` (or the end of the text)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _single_to_double_quoted(text: str, start: int) -> tuple[str, int]:
    """Turn a single-quoted string into a JSON string literal; return it and the next index.

    The string ends at a quote followed by a JSON delimiter, so that apostrophes inside
    ("Sarah's dog") stay part of it.
    """
    out: list[str] = []
    i, n = start + 1, len(text)
    while i < n:
        char = text[i]
        if char == "\\" and i + 1 < n:
            nxt = text[i + 1]
            out.append("'" if nxt == "'" else "\\" + nxt)
            i += 2
            continue
        if char == "'" and _next_significant(text, i + 1) in (",", ":", "}", "]", ""):
            return '"' + "".join(out) + '"', i + 1
        out.append('\\"' if char == '"' else char)
        i += 1
    return '"' + "".join(out) + '"', n


def _next_significant(text: str, start: int) -> str:
    """Return the next non-whitespace character from ``start`` ("" at the end)."""
    i = start
    while i < len(text) and text[i].isspace():
        i += 1
    return text[i] if i < len(text) else ""


# -- prompt ---------------------------------------------------------------------------------------

_BASE_PROMPT: Final = """\
You extract facts for an AI agent's long-term memory. Read the text in the user message and \
answer with one JSON object {"facts": [...]}, nothing else.

For each fact:
- what: one self-contained statement that still makes sense months later without the text. \
Name people and things instead of using pronouns; keep numbers, names and qualifiers. Write it in \
the language of the text.
- when / where / who / why: short free text, or null when the text does not say.
- fact_kind: "event" for something that happened or will happen at a particular time; \
"conversation" for statements, opinions, preferences, plans and general knowledge.
- occurred_start / occurred_end: when it happened, as ISO 8601 dates (YYYY-MM-DD, with a time \
THH:MM only when the text gives one), or null when the text gives no time. Turn relative dates \
("yesterday", "last spring", "next Friday", "two weeks ago") into absolute dates counted from \
the time the text was written. A coarse date covers its whole range: "in 2015" is 2015-01-01 to \
2015-12-31, "in March 2026" is 2026-03-01 to 2026-03-31; a single day has the same start and end.
- fact_type: "experience" for what the assistant (the agent) itself did, said or experienced; \
"world" for everything else: facts about the user, other people, things and the world.
- entities: the people, organizations, places, products, events, works and notable concepts the \
fact names, each {"name": as written, "type": ..., "aliases": other names the text states for \
the same thing}. For "Ocean Probe 1 (OP-1)": name "Ocean Probe 1", aliases ["OP-1"].
- causal_relations: 0-based indexes of EARLIER facts in this same list that caused this fact; \
[] when none."""

_MODE_GUIDANCE: Final[dict[str, str]] = {
    "concise": "Keep few, dense facts: one per distinct piece of information worth remembering. "
    "Merge the details of one event into one fact. Leave out greetings, filler and small talk.",
    "verbose": "Keep every detail worth remembering as its own fact, including minor details, "
    "preferences, feelings and circumstances. Leave out only greetings and pure filler.",
    "custom": "Follow the memory bank's own extraction instructions below; where they are silent, "
    "keep few, dense facts.",
    "verbatim": "Do not rewrite anything: every sentence of the text becomes one fact whose "
    '"what" is that sentence exactly as written (same words, same language, same punctuation). '
    "Only add the entities, dates and other fields.",
}


def build_system_prompt(
    mode: LlmMode,
    *,
    timestamp: datetime | None,
    context: str | None = None,
    mission: str | None = None,
    custom_instructions: str | None = None,
) -> str:
    """Build the system prompt for one chunk: guidance, mode, mission, time of writing, context.

    Instructor appends the JSON schema of :class:`LlmExtraction` after it.
    """
    if mode not in LLM_MODES:
        raise ValueError(f"unknown LLM extraction mode {mode!r}; known: {sorted(LLM_MODES)}")
    custom = (custom_instructions or "").strip() if mode == "custom" else ""
    # Custom mode without instructions falls back to concise guidance (extract() warns).
    parts = [_BASE_PROMPT, _MODE_GUIDANCE[mode if mode != "custom" or custom else "concise"]]
    if custom:
        parts.append(f"The memory bank's extraction instructions:\n{custom}")
    if mission and mission.strip():
        parts.append(
            f"The memory bank's mission:\n{mission.strip()}\n"
            "Keep only the facts that serve this mission and leave out the rest."
        )
    if timestamp is not None:
        parts.append(
            f"The text was written at {timestamp.isoformat()} ({timestamp:%A, %d %B %Y}). "
            "Count relative dates from that moment."
        )
    else:
        parts.append(
            "When the text was written is unknown: give dates only when the text states them in "
            "full, otherwise null."
        )
    if context and context.strip():
        parts.append(
            f"Context of the text (who is speaking, where it comes from):\n{context.strip()}"
        )
    return "\n\n".join(parts)


# -- the extractor -------------------------------------------------------------------------------


@dataclass
class _CallLog:
    """What one ``extract`` call saw: token usage over every request, and the last raw answer."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    responses: int = 0
    raw_text: str | None = None
    hooks: Hooks = field(default_factory=Hooks)

    def __post_init__(self) -> None:
        # Per-call hooks (not the shared client's) so that concurrent extractions keep their own
        # counts; instructor emits this once per HTTP answer, re-asks included.
        self.hooks.on("completion:response", self.on_response)

    def on_response(self, response: Any) -> None:
        """Record usage and the raw text of one answer."""
        self.responses += 1
        usage = getattr(response, "usage", None)
        self.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        self.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        self.raw_text = _answer_text(response)

    @property
    def usage(self) -> dict[str, int]:
        """Token usage in OpenAI's names."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }


def _answer_text(response: Any) -> str | None:
    """Return the assistant's text, or the arguments of its first tool call (TOOLS mode)."""
    choices = getattr(response, "choices", None) or []
    if not choices:
        return None
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    if isinstance(content, str) and content:
        return content
    for call in getattr(message, "tool_calls", None) or []:
        arguments = getattr(getattr(call, "function", None), "arguments", None)
        if isinstance(arguments, str):
            return arguments
    return None


class LlmExtractor:
    """Extracts typed facts from a chunk with an OpenAI-compatible chat model via instructor.

    Build it with :meth:`from_settings` in the app's lifespan and close it with :meth:`aclose`.
    :meth:`extract` never raises for trouble with the model or the endpoint: the chunk then comes
    back as one verbatim fact with a warning that says why.
    """

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        *,
        model: str,
        max_retries: int = 2,
        timeout_s: float = 60.0,
        instructor_mode: instructor.Mode = DEFAULT_INSTRUCTOR_MODE,
        deadline_s: float | None = None,
        backoff_s: float = 0.5,
        temperature: float | None = 0.0,
    ) -> None:
        """Wrap ``client`` (give it ``max_retries=0``: retries are counted here, not in the SDK).

        ``max_retries`` bounds both instructor's re-asks after invalid output and the retries of
        transient HTTP failures (5xx, 429, refused connections). ``timeout_s`` is the client's
        per-request timeout, used in warnings; ``deadline_s`` bounds one whole ``extract`` call
        (default: one full timeout per allowed attempt), which also catches a server that
        trickles bytes slowly enough never to trip the per-request timeout. ``temperature``
        0 keeps extraction repeatable; None leaves it to the server, for models that refuse it.
        """
        self._openai = client
        self._client = instructor.from_openai(client, mode=instructor_mode)
        self._model = model
        self._max_retries = max(0, max_retries)
        self._timeout_s = timeout_s
        self._deadline_s = deadline_s or timeout_s * (self._max_retries + 1) + 5.0
        self._backoff_s = backoff_s
        self._sampling: dict[str, Any] = {} if temperature is None else {"temperature": temperature}

    @classmethod
    def from_settings(cls, settings: Settings, **options: Any) -> LlmExtractor:
        """Build the extractor for the configured endpoint; ``options`` go to the constructor."""
        if settings.llm_base_url is None:
            raise Unavailable("LLM extraction needs MNEMO_LLM_BASE_URL (an OpenAI-compatible URL)")
        client = openai.AsyncOpenAI(
            base_url=settings.llm_base_url,
            # Local servers need no key, but the SDK refuses to start without one and would
            # otherwise read OPENAI_API_KEY from the environment behind the settings' back.
            api_key=settings.llm_api_key or "not-needed",
            timeout=settings.llm_timeout_s,
            # The SDK's own retries would multiply instructor's attempts and the timeout.
            max_retries=0,
        )
        return cls(
            client,
            model=settings.llm_model,
            max_retries=settings.llm_max_retries,
            timeout_s=settings.llm_timeout_s,
            **options,
        )

    async def aclose(self) -> None:
        """Close the HTTP connections of the underlying client."""
        await self._openai.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def extract(
        self,
        chunk_text: str,
        *,
        mode: LlmMode,
        timestamp: datetime | None = None,
        context: str | None = None,
        mission: str | None = None,
        custom_instructions: str | None = None,
    ) -> ExtractionResult:
        """Extract the facts of one chunk.

        ``timestamp`` is when the item was written (relative dates are resolved against it),
        ``context`` what the caller said about the item, ``mission`` the bank's
        ``retain_mission`` and ``custom_instructions`` its ``retain_custom_instructions``
        (used in ``custom`` mode). Caller-supplied entities are not handled here: the pipeline
        adds them to every fact.
        """
        if not chunk_text.strip():
            return ExtractionResult(facts=())
        warnings: list[str] = []
        if mode == "custom" and not (custom_instructions and custom_instructions.strip()):
            warnings.append(
                "custom extraction mode without retain_custom_instructions: used concise guidance"
            )
        system = build_system_prompt(
            mode,
            timestamp=timestamp,
            context=context,
            mission=mission,
            custom_instructions=custom_instructions,
        )
        call = _CallLog()
        try:
            async with asyncio.timeout(self._deadline_s):
                parsed = await self._ask(system, chunk_text, call)
        except (InstructorError, openai.OpenAIError, ValidationError, TimeoutError) as exc:
            reason = self._describe_failure(exc, call)
            logger.warning("LLM extraction failed, chunk kept verbatim: %s", reason)
            return _verbatim(chunk_text, warnings, reason, call.usage)

        tz = timestamp.tzinfo if timestamp is not None and timestamp.tzinfo else UTC
        facts = to_extracted_facts(parsed, tz=tz)
        if not facts and (parsed.facts or mode == "verbatim"):
            # The model wrote facts, but none survived sanitising (all empty), or verbatim mode
            # came back empty: that is a failure to extract, not a decision to keep nothing.
            return _verbatim(chunk_text, warnings, "the LLM answer held no usable fact", call.usage)
        if not facts:
            warnings.append(
                "the LLM kept no fact from this chunk"
                + (" (none matched the bank's retain_mission)" if mission else "")
            )
        return ExtractionResult(facts=tuple(facts), warnings=tuple(warnings), usage=call.usage)

    async def _ask(self, system: str, chunk_text: str, call: _CallLog) -> LlmExtraction:
        """One structured request, retried on transient HTTP failures.

        Instructor re-asks on invalid output by itself but lets API errors through at once
        (wrapped in InstructorRetryException); those worth another try are retried here.
        """
        for attempt in range(self._max_retries + 1):
            try:
                result: LlmExtraction = await self._client.create(
                    response_model=LlmExtraction,
                    messages=[
                        {"role": "system", "content": system},
                        {"role": "user", "content": f"Text:\n\n{chunk_text}"},
                    ],
                    model=self._model,
                    max_retries=self._max_retries,
                    # Lax validation: "3" for 3 is no reason to re-ask a weak model.
                    strict=False,
                    context={_CALL_KEY: call},
                    hooks=call.hooks,
                    **self._sampling,
                )
            except InstructorRetryException as exc:
                if attempt < self._max_retries and _is_transient(exc.__cause__):
                    await asyncio.sleep(self._backoff_s * 2**attempt)
                    continue
                raise
            return result
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _describe_failure(self, exc: BaseException, call: _CallLog) -> str:
        """Say in a few words what failed (and after how many answers), for the warning."""
        cause = exc.__cause__ if isinstance(exc, InstructorRetryException) else exc
        if isinstance(exc, TimeoutError):  # our deadline (the SDK's timeout is APITimeoutError)
            return f"no usable answer within the {self._deadline_s:g} s deadline"
        if isinstance(cause, openai.APITimeoutError):
            return f"request timed out after {self._timeout_s:g} s"
        if isinstance(cause, openai.APIConnectionError):
            return f"could not reach the LLM endpoint ({_first_line(cause)})"
        if isinstance(cause, openai.APIStatusError):
            return f"HTTP {cause.status_code} from the LLM endpoint ({_first_line(cause)})"
        if isinstance(exc, IncompleteOutputException):
            return "the answer was cut off at the token limit"
        answers = call.responses or 1
        return (
            f"malformed or invalid output after {answers} answer{'s' if answers != 1 else ''}"
            f" ({_first_line(cause or exc)})"
        )


def _is_transient(cause: BaseException | None) -> bool:
    """HTTP failures another try may fix. Timeouts are not retried: they already took long."""
    if isinstance(cause, openai.APITimeoutError):
        return False
    if isinstance(cause, openai.APIConnectionError):
        return True
    if isinstance(cause, openai.APIStatusError):
        return cause.status_code >= 500 or cause.status_code in (408, 409, 429)
    return False


def _first_line(exc: BaseException, limit: int = 200) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _verbatim(
    chunk_text: str, warnings: list[str], reason: str, usage: dict[str, int]
) -> ExtractionResult:
    """Keep the chunk as one world fact (the last resort), with a warning that says why."""
    fact = ExtractedFact(text=chunk_text, fact_type="world")
    warning = f"LLM extraction failed: {reason}; the chunk was kept as one verbatim fact"
    return ExtractionResult(facts=(fact,), warnings=(*warnings, warning), usage=usage)


# -- from the model's answer to ExtractedFact ----------------------------------------------------


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
