"""Reflect with an LLM: an agent loop over the bank's tools, bounded by the budget.

Each iteration is one chat completion that may call tools (:mod:`app.reflect.tools`); their
results go back to the model, which ends by calling ``done`` with its Markdown answer and the
ids it rests on (or by answering in plain text, whose ``[id]`` markers are then its
citations). When the iterations or the token budget run out, one last call without tools asks
for the answer from what was found. A tool call that cannot run (malformed arguments, an unknown
tool or memory) is answered with an error the model can act on, and listed in the trace; an LLM
call that fails (timeout, HTTP error) ends the loop with :class:`AgentFailed`, which carries
what the loop did until then.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.domain.banks import NEUTRAL_TRAIT, BankConfig
from app.reflect.budget import ReflectBudget
from app.reflect.citations import cited_ids
from app.reflect.model_index import ModelMatch
from app.reflect.schemas import ReflectLLMCall, ReflectToolCall
from app.reflect.tools import DONE, DoneArgs, Toolbox, ToolError, parse_args
from app.store.llm import LLM_FAILURES, CallLog, ChatTurn, LlmClient, ToolCall, tool_arguments

INSTRUCTIONS = """\
You answer a question from a memory bank: what an AI agent has retained about its users, their \
conversations and documents. Use the tools to find the relevant memories; search more than \
once when the first search misses part of the question. Base every statement on the memories \
the tools return, and cite each statement with the id of the memory it rests on, in square \
brackets: [id]. Cite only ids that a tool returned in this conversation. Name dates when they \
matter. If the memories do not answer the question, say so plainly instead of guessing. When \
you have the answer, call `done` with the answer in Markdown, the ids of the memories it cites \
and the ids of the mental models it used."""
FINAL_PROMPT = (
    "Answer now from what the tools returned (no more tool calls): the answer in Markdown, "
    "each statement citing its memory as [id]."
)


class AgentFailed(Exception):
    """The LLM let the loop down; ``calls``/``tools`` hold what happened until then."""

    def __init__(
        self, detail: str, calls: list[ReflectLLMCall], tools: list[ReflectToolCall]
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.calls = calls
        self.tools = tools


@dataclass
class AgentOutcome:
    """The loop's answer, what it cited, and its trace."""

    answer: str
    memory_ids: list[str]
    mental_model_ids: list[str]
    iterations: int
    tool_calls: list[ReflectToolCall] = field(default_factory=list)
    llm_calls: list[ReflectLLMCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# How a disposition trait away from neutral (3 of 5) reads in the prompt: (low, high).
_TRAITS = {
    "skepticism": (
        "take the memories at face value",
        "question memories that are weakly supported or contradict each other",
    ),
    "literalism": (
        "read the memories for what they imply",
        "keep to what the memories literally say",
    ),
    "empathy": (
        "answer matter-of-factly",
        "answer with care for the people the memories are about",
    ),
}


def system_prompt(bank: BankConfig) -> str:
    """The instructions, steered by the bank's reflect mission, background and disposition.

    (Hindsight's older ``mission`` arrives here as ``reflect_mission``: the bank service maps it.)
    """
    parts = [INSTRUCTIONS]
    if bank.reflect_mission:
        parts.append(
            f"The bank's mission, which your answer serves:\n{bank.reflect_mission.strip()}"
        )
    if bank.background:
        parts.append(f"Background on this bank:\n{bank.background.strip()}")
    leanings = []
    for trait, (low, high) in _TRAITS.items():
        value = getattr(bank.disposition, trait)
        if value != NEUTRAL_TRAIT:
            leanings.append(f"{low if value < NEUTRAL_TRAIT else high} ({trait} {value}/5)")
    if leanings:
        parts.append("Disposition: " + "; ".join(leanings) + ".")
    return "\n\n".join(parts)


def user_prompt(query: str, context: str | None, models: Sequence[ModelMatch]) -> str:
    """The question, the caller's context, and the mental models consulted first."""
    parts = [f"Question: {query.strip()}"]
    if context and context.strip():
        parts.append(f"Context from the caller:\n{context.strip()}")
    if models:
        shown = "\n\n".join(
            f"### {m.name} (mental model {m.id})\n{m.content.strip()}" for m in models
        )
        parts.append(
            "Standing answers (mental models) that match this question; they may be out of "
            f"date, so check them against the memories:\n\n{shown}"
        )
    return "\n\n".join(parts)


class AgentLoop:
    """One reflect's conversation with the model."""

    def __init__(
        self,
        llm: LlmClient,
        tools: Toolbox,
        budget: ReflectBudget,
        *,
        max_tokens: int,
        deadline_s: float,
        tool_output: bool = True,
    ) -> None:
        self._llm = llm
        self._tools = tools
        self._budget = budget
        self._max_tokens = max_tokens
        self._deadline = time.monotonic() + deadline_s
        self._tool_output = tool_output
        self.call = CallLog()
        self._llm_calls: list[ReflectLLMCall] = []
        self._tool_calls: list[ReflectToolCall] = []

    async def run(self, messages: list[dict[str, Any]]) -> AgentOutcome:
        """Loop until ``done``, a plain answer, or the budget; then the answer."""
        notes: list[str] = []
        specs = self._tools.specs()
        for iteration in range(1, self._budget.max_iterations + 1):
            if (
                self.call.prompt_tokens + self.call.completion_tokens
                >= self._budget.max_total_tokens
            ):
                notes.append(
                    f"token budget ({self._budget.max_total_tokens}) reached after "
                    f"{iteration - 1} iterations"
                )
                break
            turn = await self._chat(f"agent_{iteration}", messages, specs)
            if not turn.tool_calls:
                text = turn.content or ""
                return self._outcome(
                    text, cited_ids(text, self._tools.memories), [], iteration, notes
                )
            messages.append(turn.as_message())
            done: DoneArgs | None = None
            for call in turn.tool_calls:
                result, finished = await self._run_tool(call.name, call.arguments, iteration)
                done = done or finished
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
                )
            if done is not None:
                cited = [*done.memory_ids, *cited_ids(done.answer, self._tools.memories)]
                return self._outcome(
                    done.answer, list(dict.fromkeys(cited)), done.mental_model_ids, iteration, notes
                )
        else:
            notes.append(f"iteration budget ({self._budget.max_iterations}) reached")
        messages.append({"role": "user", "content": FINAL_PROMPT})
        turn = await self._chat("final", messages, None)
        text = turn.content or ""
        return self._outcome(
            text, cited_ids(text, self._tools.memories), [], self._budget.max_iterations, notes
        )

    def _outcome(
        self,
        answer: str,
        memory_ids: list[str],
        model_ids: list[str],
        iterations: int,
        notes: list[str],
    ) -> AgentOutcome:
        return AgentOutcome(
            answer=answer.strip(),
            memory_ids=memory_ids,
            mental_model_ids=model_ids,
            iterations=iterations,
            tool_calls=self._tool_calls,
            llm_calls=self._llm_calls,
            notes=notes,
        )

    async def _chat(
        self, scope: str, messages: list[dict[str, Any]], specs: list[dict[str, Any]] | None
    ) -> ChatTurn:
        remaining = self._deadline - time.monotonic()
        before = (self.call.prompt_tokens, self.call.completion_tokens)
        start = time.perf_counter()
        error: str | None = None
        try:
            if remaining <= 0:
                raise TimeoutError
            return await self._llm.chat(
                messages,
                self.call,
                tools=specs,
                max_tokens=self._max_tokens,
                deadline_s=min(self._llm.deadline_s, remaining),
            )
        except LLM_FAILURES as exc:
            error = (
                "the reflect deadline passed"
                if isinstance(exc, TimeoutError) and remaining <= self._llm.deadline_s
                else self._llm.describe_failure(exc, self.call)
            )
            raise AgentFailed(error, self._llm_calls, self._tool_calls) from exc
        finally:
            self._llm_calls.append(
                ReflectLLMCall(
                    scope=scope,
                    duration_ms=round((time.perf_counter() - start) * 1000),
                    input_tokens=self.call.prompt_tokens - before[0],
                    output_tokens=self.call.completion_tokens - before[1],
                    error=error,
                )
            )

    async def _run_tool(
        self, name: str, raw: str, iteration: int
    ) -> tuple[dict[str, Any], DoneArgs | None]:
        """Run one call; errors become the tool's answer. Returns it and ``done``'s arguments."""
        start = time.perf_counter()
        arguments: dict[str, Any] = {}
        done: DoneArgs | None = None
        try:
            arguments = tool_arguments_or_error(name, raw)
            if name == DONE:
                done = parse_args(DoneArgs, arguments)
                result: dict[str, Any] = {"ok": True}
            else:
                result = await self._tools.call(name, arguments)
        except ToolError as exc:
            result = {"error": str(exc)}
        self._tool_calls.append(
            ReflectToolCall(
                tool=name,
                input=arguments or {"raw_arguments": raw[:500]},
                output=result if self._tool_output or "error" in result else None,
                duration_ms=round((time.perf_counter() - start) * 1000),
                iteration=iteration,
            )
        )
        return result, done


def tool_arguments_or_error(name: str, raw: str) -> dict[str, Any]:
    """A call's arguments as an object, or ``ToolError`` saying why they are unusable."""
    try:
        return tool_arguments(ToolCall(id="", name=name, arguments=raw))
    except ValueError as exc:
        raise ToolError(f"malformed arguments: {exc}") from None
