"""The system prompt of LLM extraction: the task, the mode's guidance, the bank's mission."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from app.domain.banks import LLM_MODES, LlmMode

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

    Instructor appends the JSON schema of
    :class:`~app.retain.extract.llm_schema.LlmExtraction` after it.
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
