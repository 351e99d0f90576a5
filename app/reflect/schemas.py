"""What a client sends to reflect and to mental models, and what it gets back.

Field names follow Hindsight's API (the ``hindsight-client`` 1.1.0 models are the reference):
Mnemo adds fields, it never renames theirs. Hindsight fields Mnemo has no use for are accepted
(so that its clients work unchanged) and documented where they are declared.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from app.domain.facts import FactType
from app.domain.tags import Tag, TagsMatch
from app.recall.recipes import Budget

# The answer's token budget (as recall's); the ceiling only keeps a typo from asking for a bank.
MaxTokens = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
DEFAULT_MAX_TOKENS = 4096
# A mental model's page length, as Hindsight bounds it.
ModelMaxTokens = Annotated[int, msgspec.Meta(ge=256, le=8192)]
DEFAULT_MODEL_MAX_TOKENS = 2048
# Mental model ids a client may choose: the characters of a bank id.
ModelId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]
RefreshMode = Literal["full", "delta"]
Detail = Literal["metadata", "content", "full"]


# -- reflect: the request ---------------------------------------------------------------------


class ToolCallsInclude(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``include.tool_calls``: return the trace; ``output: false`` leaves tool outputs out."""

    output: bool = True


class ReflectInclude(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What to return beside the answer: ``facts`` (any object) adds ``based_on``."""

    facts: dict[str, Any] | None = None
    tool_calls: ToolCallsInclude | None = None


class ReflectRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A question answered from the bank, with the evidence the answer rests on.

    ``budget`` bounds the work (recall depth, quoted facts offline; agent iterations and tokens
    with an LLM); ``max_tokens`` bounds the answer; ``tags``/``tags_match``/``fact_types`` filter
    the memories read, as recall's filters do; ``response_schema`` asks for a
    ``structured_output`` (needs an LLM). Accepted for Hindsight's clients with no effect in
    Mnemo, which has no directives: ``apply_all_directives``. ``tag_groups`` is refused when
    non-empty (use ``tags`` + ``tags_match``). Mnemo adds ``query_timestamp`` ("now" for time
    expressions in the query, as in recall) and ``trace`` (return the trace without
    ``include.tool_calls``).
    """

    query: str
    budget: Budget = "mid"
    context: str | None = None
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS
    include: ReflectInclude | None = None
    response_schema: dict[str, Any] | None = None
    tags: list[Tag] | None = None
    tags_match: TagsMatch = "any"
    tag_groups: list[Any] | None = None
    apply_all_directives: bool = False
    fact_types: list[FactType] | None = None
    exclude_mental_models: bool = False
    exclude_mental_model_ids: list[str] | None = None
    reflect_search_observations_max_tokens: Annotated[int, msgspec.Meta(ge=1)] | None = None
    reflect_search_observations_include_entities: bool | None = None
    query_timestamp: datetime | None = None
    trace: bool = False


# -- reflect: the response --------------------------------------------------------------------


class ReflectFact(msgspec.Struct, frozen=True, kw_only=True):
    """A memory the answer rests on (``text`` of an observation is its consolidated claim)."""

    id: str
    text: str
    type: str
    context: str | None = None
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    mentioned_at: datetime | None = None
    document_id: str | None = None
    chunk_id: str | None = None
    tags: list[str] = msgspec.field(default_factory=list)
    metadata: dict[str, Any] | None = None


class ReflectMentalModel(msgspec.Struct, frozen=True, kw_only=True):
    """A mental model the answer consulted: its id and content (Mnemo adds ``name``)."""

    id: str
    text: str
    context: str | None = None
    name: str | None = None


class ReflectDirective(msgspec.Struct, frozen=True, kw_only=True):
    """Hindsight's directives; Mnemo has none, so ``based_on.directives`` is always empty."""

    id: str
    name: str
    content: str


class ReflectBasedOn(msgspec.Struct, frozen=True, kw_only=True):
    """Exactly the memories the answer cites, and the mental models it consulted."""

    memories: list[ReflectFact] = msgspec.field(default_factory=list)
    mental_models: list[ReflectMentalModel] = msgspec.field(default_factory=list)
    directives: list[ReflectDirective] = msgspec.field(default_factory=list)


class TokenUsage(msgspec.Struct, frozen=True, kw_only=True):
    """Tokens the LLM calls of one request used (all zero for the offline answer)."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    thoughts_tokens: int = 0


class ReflectToolCall(msgspec.Struct, frozen=True, kw_only=True):
    """One tool call of the agent loop: its input, its output (unless left out), its time.

    ``output`` holds ``error`` when the call could not run (malformed arguments, unknown tool).
    """

    tool: str
    input: dict[str, Any]
    output: dict[str, Any] | None = None
    duration_ms: int
    iteration: int = 0


class ReflectLLMCall(msgspec.Struct, frozen=True, kw_only=True):
    """One LLM call: ``agent_1``, ``agent_2``, … ``final``, ``structured_output``.

    Mnemo adds its tokens and, when it failed, why.
    """

    scope: str
    duration_ms: int
    input_tokens: int = 0
    output_tokens: int = 0
    error: str | None = None


class DroppedCitation(msgspec.Struct, frozen=True, kw_only=True):
    """A memory id the model cited that the answer does not keep, and why."""

    id: str
    reason: str


class ReflectTrace(msgspec.Struct, frozen=True, kw_only=True):
    """How the answer was reached (Mnemo adds everything after ``llm_calls``).

    ``mode`` is ``agent`` (the LLM loop) or ``extractive`` (offline, or the fallback after an
    LLM failure, which ``notes`` then names); ``dropped_citations`` lists citations the code
    refused; ``timings_ms`` the time of each phase.
    """

    tool_calls: list[ReflectToolCall] = msgspec.field(default_factory=list)
    llm_calls: list[ReflectLLMCall] = msgspec.field(default_factory=list)
    mode: Literal["agent", "extractive"] = "extractive"
    iterations: int = 0
    dropped_citations: list[DroppedCitation] = msgspec.field(default_factory=list)
    timings_ms: dict[str, float] = msgspec.field(default_factory=dict)
    notes: list[str] = msgspec.field(default_factory=list)


class ReflectResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The answer (Markdown) and, when asked for, its evidence and trace."""

    text: str
    based_on: ReflectBasedOn | None = None
    structured_output: dict[str, Any] | None = None
    structured_output_error: str | None = None
    usage: TokenUsage | None = None
    trace: ReflectTrace | None = None


# -- mental models ----------------------------------------------------------------------------


class MentalModelTriggerInput(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True
):
    """Refresh settings as a client sends them; fields not sent keep their stored value.

    Used by Mnemo: ``budget``, ``mode`` (``full`` regenerates; ``delta`` edits the page by
    section with what arrived since the last refresh), ``refresh_after_consolidation``,
    ``min_refresh_interval_seconds``, ``fact_types``, ``tags_match`` (default ``any``, as in
    recall: untagged memories count unless a strict mode is asked for), ``exclude_mental_models``,
    ``exclude_mental_model_ids``, ``recall_max_tokens``,
    ``reflect_search_observations_max_tokens``, ``reflect_search_observations_include_entities``
    and ``keep_trace``. Accepted with no effect: ``include_chunks``, ``recall_chunks_max_tokens``.
    Refused when set, because Mnemo does not do them: ``refresh_cron``, ``full_refresh_cron``,
    ``tag_groups``, ``response_schema``.
    """

    budget: Budget | UnsetType = UNSET
    mode: RefreshMode | UnsetType = UNSET
    refresh_after_consolidation: bool | UnsetType = UNSET
    refresh_cron: str | UnsetType | None = UNSET
    full_refresh_cron: str | UnsetType | None = UNSET
    min_refresh_interval_seconds: Annotated[int, msgspec.Meta(ge=0)] | UnsetType | None = UNSET
    fact_types: list[FactType] | UnsetType | None = UNSET
    exclude_mental_models: bool | UnsetType = UNSET
    exclude_mental_model_ids: list[str] | UnsetType | None = UNSET
    tags_match: TagsMatch | UnsetType | None = UNSET
    tag_groups: list[Any] | UnsetType | None = UNSET
    include_chunks: bool | UnsetType | None = UNSET
    recall_max_tokens: MaxTokens | UnsetType | None = UNSET
    recall_chunks_max_tokens: int | UnsetType | None = UNSET
    reflect_search_observations_max_tokens: (
        Annotated[int, msgspec.Meta(ge=1)] | UnsetType | None
    ) = UNSET
    reflect_search_observations_include_entities: bool | UnsetType | None = UNSET
    response_schema: dict[str, Any] | UnsetType | None = UNSET
    keep_trace: bool | UnsetType = UNSET


class MentalModelTrigger(msgspec.Struct, frozen=True, kw_only=True):
    """A mental model's refresh settings as stored and shown (see the input's docstring)."""

    budget: Budget = "mid"
    mode: RefreshMode = "full"
    refresh_after_consolidation: bool = False
    refresh_cron: str | None = None
    full_refresh_cron: str | None = None
    min_refresh_interval_seconds: int | None = None
    fact_types: list[FactType] | None = None
    exclude_mental_models: bool = False
    exclude_mental_model_ids: list[str] | None = None
    tags_match: TagsMatch = "any"
    tag_groups: list[Any] | None = None
    include_chunks: bool | None = None
    recall_max_tokens: int | None = None
    recall_chunks_max_tokens: int | None = None
    reflect_search_observations_max_tokens: int | None = None
    reflect_search_observations_include_entities: bool | None = None
    response_schema: dict[str, Any] | None = None
    keep_trace: bool = False


class CreateMentalModelRequest(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True
):
    """A standing question: its content is generated by the operation the answer names."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    source_query: str
    id: ModelId | None = None
    tags: list[Tag] | None = None
    max_tokens: ModelMaxTokens = DEFAULT_MODEL_MAX_TOKENS
    trigger: MentalModelTriggerInput | None = None


class CreateMentalModelResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The new model's id and the operation generating its first version."""

    mental_model_id: str
    operation_id: str


class UpdateMentalModelRequest(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True
):
    """Fields to change; those not sent keep their value (the trigger is merged field by field).

    A changed ``source_query`` makes the next delta refresh a full one.
    """

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | UnsetType = UNSET
    source_query: str | UnsetType = UNSET
    max_tokens: ModelMaxTokens | UnsetType = UNSET
    tags: list[Tag] | UnsetType | None = UNSET
    trigger: MentalModelTriggerInput | UnsetType = UNSET


class RefreshMentalModelRequest(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True
):
    """``mode`` overrides the model's own refresh mode this once (Mnemo also takes ``delta``)."""

    mode: RefreshMode | None = None


class AsyncOperationSubmitResponse(msgspec.Struct, frozen=True, kw_only=True):
    """An operation was queued: follow it at ``GET .../operations/{operation_id}``."""

    operation_id: str
    status: str


class Section(msgspec.Struct, frozen=True, kw_only=True):
    """One section of a mental model's page.

    ``id`` is stable for the life of the section (renames and moves keep it); ``memory_ids``
    are the memories its text rests on.
    """

    id: str
    title: str
    text: str
    memory_ids: list[str] = msgspec.field(default_factory=list)


class MentalModelResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A mental model. ``content`` is the page in Markdown, rendered from ``sections``.

    ``detail`` decides what is filled: ``metadata`` (no content), ``content`` (adds content,
    sections and settings), ``full`` (adds ``reflect_response``: the page with its evidence,
    as ``{"text", "based_on": {"memories", "mental_models"}}``). Mnemo adds ``sections``,
    ``version`` and ``last_operation_id``; ``is_stale`` is true when the page has never been
    written or its last refresh failed; ``is_knowledge_page`` is always false.
    """

    id: str
    bank_id: str
    name: str
    source_query: str | None = None
    content: str | None = None
    tags: list[str] = msgspec.field(default_factory=list)
    max_tokens: int | None = None
    trigger: MentalModelTrigger | None = None
    last_refreshed_at: datetime | None = None
    last_memory_seen_at: datetime | None = None
    last_refresh_failed_at: datetime | None = None
    last_full_refreshed_at: datetime | None = None
    created_at: datetime | None = None
    is_knowledge_page: bool = False
    reflect_response: dict[str, Any] | None = None
    is_stale: bool = False
    sections: list[Section] | None = None
    version: int = 0
    last_operation_id: str | None = None


class MentalModelListResponse(msgspec.Struct, frozen=True, kw_only=True):
    """One page of a bank's mental models; ``total`` counts every match, not just this page."""

    items: list[MentalModelResponse]
    total: int
    limit: int
    offset: int


class SectionChange(msgspec.Struct, frozen=True, kw_only=True):
    """What happened to one section between two versions.

    ``change``: ``added``, ``removed``, ``edited`` (its text), ``renamed``, ``moved`` (several
    may apply to one section, joined as ``renamed+edited``).
    """

    id: str
    title: str
    change: str
    previous_title: str | None = None


class DeltaOperations(msgspec.Struct, frozen=True, kw_only=True):
    """The edit operations of a delta refresh: those applied and those skipped, with why."""

    applied: list[dict[str, Any]] = msgspec.field(default_factory=list)
    skipped: list[dict[str, Any]] = msgspec.field(default_factory=list)


class MentalModelVersion(msgspec.Struct, frozen=True, kw_only=True):
    """One version of a page (history lists them newest first).

    Hindsight's fields: ``previous_content`` and ``changed_at``. Mnemo adds the version's own
    ``content``, why it was written (``reason``: created, refresh, consolidation, edit), how
    (``mode``: full, delta, offline), what changed section by section, the delta operations,
    the memories it rests on and the operation that wrote it.
    """

    version: int
    changed_at: datetime
    previous_content: str | None
    content: str
    reason: str
    mode: str
    changes: list[SectionChange] = msgspec.field(default_factory=list)
    unchanged_sections: int = 0
    delta_operations: DeltaOperations | None = None
    memory_ids: list[str] = msgspec.field(default_factory=list)
    operation_id: str | None = None
