"""The LLM endpoint: one client over any OpenAI-compatible server, for structured answers.

Extraction, and every other feature that asks a model for JSON, goes through
:class:`LlmClient`: the openai SDK wrapped by instructor, a per-call deadline, retries of transient
HTTP failures, token usage per call (:class:`CallLog`), and answers that are not clean JSON
repaired before they are refused (:class:`RepairingModel`).

Features that run an agent loop (reflect) use :meth:`LlmClient.chat`: one chat completion that may
answer with tool calls, under the same deadline, retries and usage log; and
:meth:`LlmClient.structured_json` for an answer that must validate against a caller's JSON schema.

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
list) before instructor re-asks with the validation error, a per-call timeout and retries of
transient HTTP failures. Another mode can be passed to ``LlmClient`` for a server known to
support it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Self, TypeVar

import instructor
import jsonschema
import openai
from instructor.core.exceptions import (
    IncompleteOutputException,
    InstructorError,
    InstructorRetryException,
)
from instructor.core.hooks import Hooks
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic.config import ExtraValues

from app.config import Settings
from app.errors import Unavailable
from app.store.json_repair import repair_json

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

# See the module docstring: the mode that works with the widest range of servers.
DEFAULT_INSTRUCTOR_MODE: Final = instructor.Mode.MD_JSON

# Key under which a call's log travels in instructor's validation context to the JSON repair.
CALL_KEY: Final = "mnemo_llm_call"

# What a structured call raises when the model or the endpoint let it down.
LLM_FAILURES: Final = (InstructorError, openai.OpenAIError, ValidationError, TimeoutError)


@dataclass
class CallLog:
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
        self.raw_text = answer_text(response)

    @property
    def usage(self) -> dict[str, int]:
        """Token usage in OpenAI's names."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }


def answer_text(response: Any) -> str | None:
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


class RepairingModel(BaseModel):
    """A response model whose JSON is repaired (:func:`repair_json`) before it is refused."""

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
        fragment (``[]`` or one entity), which could even validate, as an empty answer. So the
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
        call = context.get(CALL_KEY) if isinstance(context, dict) else None
        raw = call.raw_text if isinstance(call, CallLog) else None
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


def json_schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why ``schema`` cannot shape a structured answer (None when it can).

    The answer is one JSON object, so the schema must describe an object (or leave the type
    open); anything else a caller would only learn about from a model that cannot comply.
    """
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"not a valid JSON schema: {exc.message}"
    kind = schema.get("type", "object")
    if kind != "object" and not (isinstance(kind, list) and "object" in kind):
        return f"the schema must describe a JSON object (its type is {kind!r})"
    return None


class SchemaAnswer(RepairingModel):
    """A structured answer that must validate against a caller's JSON schema.

    Subclassed per schema by :func:`schema_model`: instructor shows the model the caller's schema
    (``model_json_schema``) and re-asks with the validation errors when the answer breaks it.
    """

    model_config = ConfigDict(extra="allow")
    caller_schema: ClassVar[dict[str, Any]] = {}

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The caller's schema, which is what the model must follow."""
        return cls.caller_schema

    @model_validator(mode="before")
    @classmethod
    def _follows_schema(cls, data: Any) -> Any:
        validator = jsonschema.validators.validator_for(cls.caller_schema)(cls.caller_schema)
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        if errors:
            raise ValueError(
                "; ".join(
                    f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
                    for e in errors[:5]
                )
            )
        return data

    def answer(self) -> dict[str, Any]:
        """The validated object, as the model wrote it."""
        return dict(self.__pydantic_extra__ or {})


def schema_model(schema: Mapping[str, Any]) -> type[SchemaAnswer]:
    """A response model for ``schema`` (check it first with :func:`json_schema_problem`)."""
    return type("StructuredAnswer", (SchemaAnswer,), {"caller_schema": dict(schema)})


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for; ``arguments`` is its raw JSON text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatTurn:
    """One assistant message: its text and the tool calls it asked for."""

    content: str | None
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None

    def as_message(self) -> dict[str, Any]:
        """The message to send back in the conversation, in OpenAI's shape."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        return message


class LlmClient:
    """Structured answers from an OpenAI-compatible chat model, through instructor.

    Build it with :meth:`from_settings` in the app's lifespan and close it with :meth:`aclose`.
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
        per-request timeout, used in messages; ``deadline_s`` bounds one whole call (default:
        one full timeout per allowed attempt), which also catches a server that trickles bytes
        slowly enough never to trip the per-request timeout. ``temperature`` 0 keeps answers
        repeatable; None leaves it to the server, for models that refuse it.
        """
        self.openai = client
        self._client = instructor.from_openai(client, mode=instructor_mode)
        self.model = model
        self._max_retries = max(0, max_retries)
        self._timeout_s = timeout_s
        self.deadline_s = deadline_s or timeout_s * (self._max_retries + 1) + 5.0
        self._backoff_s = backoff_s
        self._sampling: dict[str, Any] = {} if temperature is None else {"temperature": temperature}

    @classmethod
    def from_settings(cls, settings: Settings, **options: Any) -> LlmClient:
        """Build the client for the configured endpoint; ``options`` go to the constructor."""
        if settings.llm_base_url is None:
            raise Unavailable(
                "this needs an LLM: set MNEMO_LLM_BASE_URL (an OpenAI-compatible URL)"
            )
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
        await self.openai.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def structured(
        self, response_model: type[M], messages: Sequence[dict[str, str]], call: CallLog
    ) -> M:
        """One structured answer within the deadline, retried on transient HTTP failures.

        Instructor re-asks on invalid output by itself but lets API errors through at once
        (wrapped in InstructorRetryException); those worth another try are retried here.
        Raises one of :data:`LLM_FAILURES`; :meth:`describe_failure` says what went wrong.
        """
        async with asyncio.timeout(self.deadline_s):
            for attempt in range(self._max_retries + 1):
                try:
                    result: M = await self._client.create(
                        response_model=response_model,
                        messages=list(messages),  # type: ignore[arg-type]
                        model=self.model,
                        max_retries=self._max_retries,
                        # Lax validation: "3" for 3 is no reason to re-ask a weak model.
                        strict=False,
                        context={CALL_KEY: call},
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

    async def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        call: CallLog,
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int | None = None,
        deadline_s: float | None = None,
    ) -> ChatTurn:
        """One chat completion, which may ask for calls of ``tools`` (OpenAI function tools).

        The model chooses between answering and calling tools (``tool_choice`` auto); the caller
        runs the tools and sends their results back. Transient HTTP failures are retried within
        ``deadline_s`` (default: the client's deadline); usage goes to ``call``. Raises one of
        :data:`LLM_FAILURES`.
        """
        options: dict[str, Any] = dict(self._sampling)
        if tools:
            options["tools"] = [dict(tool) for tool in tools]
        if max_tokens is not None:
            options["max_tokens"] = max_tokens
        async with asyncio.timeout(deadline_s or self.deadline_s):
            for attempt in range(self._max_retries + 1):
                try:
                    response = await self.openai.chat.completions.create(
                        model=self.model,
                        messages=[dict(m) for m in messages],  # type: ignore[misc]
                        **options,
                    )
                except openai.APIError as exc:
                    if attempt < self._max_retries and _is_transient(exc):
                        await asyncio.sleep(self._backoff_s * 2**attempt)
                        continue
                    raise
                call.on_response(response)
                return _chat_turn(response)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def structured_json(
        self, schema: Mapping[str, Any], messages: Sequence[dict[str, str]], call: CallLog
    ) -> dict[str, Any]:
        """One JSON object that validates against ``schema``, re-asked while it does not."""
        answer = await self.structured(schema_model(schema), messages, call)
        return answer.answer()

    def describe_failure(self, exc: BaseException, call: CallLog) -> str:
        """Say in a few words what failed (and after how many answers), for a warning."""
        cause = exc.__cause__ if isinstance(exc, InstructorRetryException) else exc
        if isinstance(exc, TimeoutError):  # our deadline (the SDK's timeout is APITimeoutError)
            return f"no usable answer within the {self.deadline_s:g} s deadline"
        if isinstance(cause, openai.APITimeoutError):
            return f"request timed out after {self._timeout_s:g} s"
        if isinstance(cause, openai.APIConnectionError):
            return f"could not reach the LLM endpoint ({first_line(cause)})"
        if isinstance(cause, openai.APIStatusError):
            return f"HTTP {cause.status_code} from the LLM endpoint ({first_line(cause)})"
        if isinstance(exc, IncompleteOutputException):
            return "the answer was cut off at the token limit"
        answers = call.responses or 1
        return (
            f"malformed or invalid output after {answers} answer{'s' if answers != 1 else ''}"
            f" ({first_line(cause or exc)})"
        )


def _chat_turn(response: Any) -> ChatTurn:
    choices = getattr(response, "choices", None) or []
    if not choices:
        return ChatTurn(content=None, tool_calls=(), finish_reason=None)
    message = choices[0].message
    calls = tuple(
        ToolCall(
            id=str(c.id or f"call_{i}"),
            name=str(getattr(c.function, "name", "") or ""),
            arguments=str(getattr(c.function, "arguments", "") or ""),
        )
        for i, c in enumerate(getattr(message, "tool_calls", None) or [])
        if getattr(c, "function", None) is not None
    )
    content = message.content if isinstance(message.content, str) else None
    return ChatTurn(content=content, tool_calls=calls, finish_reason=choices[0].finish_reason)


def tool_arguments(call: ToolCall) -> dict[str, Any]:
    """A tool call's arguments as an object; ``ValueError`` when they are not one.

    Weak models send broken JSON here too, so the same repair as for structured answers is
    tried before refusing.
    """
    text = call.arguments.strip() or "{}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        repaired = repair_json(text)
        if repaired is None:
            raise ValueError(f"arguments of {call.name!r} are not JSON: {text[:200]!r}") from None
        value = json.loads(repaired)
    if not isinstance(value, dict):
        raise ValueError(f"arguments of {call.name!r} must be a JSON object, not {text[:200]!r}")
    return value


def _is_transient(cause: BaseException | None) -> bool:
    """HTTP failures another try may fix. Timeouts are not retried: they already took long."""
    if isinstance(cause, openai.APITimeoutError):
        return False
    if isinstance(cause, openai.APIConnectionError):
        return True
    if isinstance(cause, openai.APIStatusError):
        return cause.status_code >= 500 or cause.status_code in (408, 409, 429)
    return False


def first_line(exc: BaseException, limit: int = 200) -> str:
    """The first line of an error's message, cut to ``limit`` characters."""
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= limit else line[: limit - 1] + "…"
