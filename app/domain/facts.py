"""What a fact is: its types, its states, and the kinds of change its history records."""

from __future__ import annotations

import re
from typing import Literal, get_args

# Extraction writes world and experience facts; consolidation writes observations.
FactType = Literal["world", "experience", "observation"]
FACT_TYPES: tuple[FactType, ...] = get_args(FactType)

# The types an extractor (or a curator's edit) may give a fact; observations are derived only.
ExtractedFactType = Literal["world", "experience"]
EXTRACTED_FACT_TYPES: tuple[ExtractedFactType, ...] = get_args(ExtractedFactType)

# A chat turn's opening, "Name: ": local extraction keeps it in each fact of the turn, so the
# fact stays self-contained ("Caroline: I went to the support group").
SPEAKER_PREFIX = re.compile(
    r"[ \t]*(?P<name>[^\W\d_][\w'’.-]*(?:[ \t][^\W\d_][\w'’.-]*){0,2})[ \t]*[:：][ \t]*(?=\S)"
)


def recall_types(
    asked: list[FactType] | None, *, prefer_observations: bool = False
) -> tuple[FactType, ...]:
    """The fact types a recall reads: those asked for, else facts, with observations if preferred.

    Observations are opt-in: recall without ``types`` answers with the facts as they were said
    (an observation restating them would take the place of the facts the caller cites), and
    ``prefer_observations`` or ``types: ["observation"]`` asks for the conclusions.
    """
    if asked:
        return tuple(dict.fromkeys(asked))
    return FACT_TYPES if prefer_observations else EXTRACTED_FACT_TYPES


# Event: something happened; conversation: something was said (LLM extraction tells them apart).
FactKind = Literal["event", "conversation"]
FACT_KINDS: tuple[FactKind, ...] = get_args(FactKind)

# Invalidated facts stay stored (for audit and restore) but leave recall and the active graph.
MemoryState = Literal["valid", "invalidated"]
MEMORY_STATES: tuple[MemoryState, ...] = get_args(MemoryState)

# edit/invalidate/restore come from a curator; retire from retain (a chunk left its document).
# An observation's revisions come from consolidation: create, update (a rewrite: new text or
# more sources), delete (a decision retracted it), and source_removed (a source fact was
# invalidated, edited or deleted; the observation is retracted when none is left).
RevisionKind = Literal[
    "edit",
    "invalidate",
    "restore",
    "retire",
    "create",
    "update",
    "delete",
    "source_removed",
]

# Where a fact stands in consolidation: waiting, consolidated, or failed (retried with backoff).
# Observations themselves have no consolidation state.
ConsolidationState = Literal["pending", "done", "failed"]
CONSOLIDATION_STATES: tuple[ConsolidationState, ...] = get_args(ConsolidationState)
