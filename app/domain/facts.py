"""What a fact is: its types, its states, and the kinds of change its history records."""

from __future__ import annotations

from typing import Literal, get_args

# Extraction writes world and experience facts; consolidation writes observations.
FactType = Literal["world", "experience", "observation"]
FACT_TYPES: tuple[FactType, ...] = get_args(FactType)

# The types an extractor (or a curator's edit) may give a fact; observations are derived only.
ExtractedFactType = Literal["world", "experience"]
EXTRACTED_FACT_TYPES: tuple[ExtractedFactType, ...] = get_args(ExtractedFactType)

# Event: something happened; conversation: something was said (LLM extraction tells them apart).
FactKind = Literal["event", "conversation"]
FACT_KINDS: tuple[FactKind, ...] = get_args(FactKind)

# Invalidated facts stay stored (for audit and restore) but leave recall and the active graph.
MemoryState = Literal["valid", "invalidated"]
MEMORY_STATES: tuple[MemoryState, ...] = get_args(MemoryState)

# edit/invalidate/restore come from a curator; retire from retain (a chunk left its document).
RevisionKind = Literal["edit", "invalidate", "restore", "retire"]
