"""Hindsight compatibility: the request keys Mnemo accepts but does not act on, said out loud.

Hindsight's clients send keys of their own on every call (``observation_scopes`` on retain,
``include`` and ``min_scores`` on recall, chunk sizes on a bank...). Mnemo accepts every key
Hindsight defines, acts on those it can, and names the others in the answer's ``warnings``
(never silently dropped); a key neither defines is still a 400. The functions here are pure:
they read a decoded request and say what to warn about or how to fold a Hindsight key into
Mnemo's own (``document_tags`` into each item's tags).
"""

from __future__ import annotations

from typing import Any

import msgspec

from app.curate.schemas.banks import UNHONOURED_BANK_FIELDS, Bank, BankUpdate
from app.domain.banks import NEUTRAL_TRAIT, ExtractionMode
from app.errors import InvalidInput
from app.recall.schemas import RecallRequest
from app.retain.schemas import RetainItem, RetainRequest

# Hindsight bank settings (``PATCH .../config``) that have no Mnemo counterpart yet: accepted,
# not stored, named in the answer's warnings.
HINDSIGHT_ONLY_SETTINGS: frozenset[str] = frozenset(
    {
        "reflect_source_facts_max_tokens",
        "retain_default_strategy",
        "retain_strategies",
        "retain_chunk_batch_size",
        "store_document_text",
        "entities_allow_free_form",
        "max_observations_per_scope",
        "observation_scope_limits",
        "consolidation_strategies",
        "default_observation_scopes",
        "enable_auto_consolidation",
        "consolidation_use_decision_model",
        "consolidation_llm_parallelism",
        "consolidation_max_memories_per_round",
        "consolidation_llm_batch_size",
        "consolidation_source_facts_max_tokens",
        "consolidation_source_facts_max_tokens_per_observation",
        "mental_model_min_refresh_interval_seconds",
        "knowledge_page_default_trigger",
        "reflect_default_options",
        "reflect_use_decision_model",
        "mental_model_refresh_use_decision_model",
        "mental_model_delta_use_decision_model",
        "recall_max_tokens",
        "recall_include_chunks",
        "recall_prefer_observations",
        "recall_chunks_max_tokens",
        "recall_budget_function",
        "recall_budget_fixed_low",
        "recall_budget_fixed_mid",
        "recall_budget_fixed_high",
        "recall_budget_adaptive_low",
        "recall_budget_adaptive_mid",
        "recall_budget_adaptive_high",
        "recall_budget_min",
        "recall_budget_max",
        "mcp_enabled_tools",
        "llm_gemini_safety_settings",
        "memory_defense",
        "audit_log_enabled",
    }
)

# The settings ``GET .../config`` shows, with the value each has on a bank that never set it
# (the extraction mode's default depends on the service: filled in by ``config_view``).
_SETTINGS: dict[str, Any] = {
    "retain_mission": None,
    "retain_extraction_mode": None,
    "retain_custom_instructions": None,
    "entity_labels": [],
    "reflect_mission": None,
    "background": None,
    "disposition_skepticism": NEUTRAL_TRAIT,
    "disposition_literalism": NEUTRAL_TRAIT,
    "disposition_empathy": NEUTRAL_TRAIT,
    "enable_observations": True,
    "observations_mission": None,
}


def not_honoured(key: str, why: str) -> str:
    """One warning, in one wording everywhere."""
    return f"{key}: accepted but not honoured ({why})"


def retain_items(request: RetainRequest) -> tuple[list[RetainItem], list[str]]:
    """The items to retain (``document_tags`` added to each) and the warnings to return."""
    warnings: list[str] = []
    items = request.items
    if request.document_tags:
        extra = request.document_tags
        items = [
            msgspec.structs.replace(item, tags=list(dict.fromkeys([*(item.tags or ()), *extra])))
            for item in items
        ]
    if request.operation_id is not None:
        warnings.append(
            not_honoured("operation_id", "Mnemo chooses the operation id; use the one returned")
        )
    for key, why, sent in (
        (
            "observation_scopes",
            "observations are scoped by each fact's whole tag set, Hindsight's 'combined'",
            any(i.observation_scopes not in (None, "combined") for i in items),
        ),
        ("strategy", "Mnemo has no named extraction strategies", any(i.strategy for i in items)),
        (
            "update_mode",
            "a document sent again replaces its stored version",
            any(i.update_mode == "append" for i in items),
        ),
    ):
        if sent:
            warnings.append(not_honoured(key, why))
    return items, warnings


def recall_warnings(request: RecallRequest) -> list[str]:
    """The recall keys sent that Mnemo does not act on."""
    warnings: list[str] = []
    if request.tag_groups:
        warnings.append(not_honoured("tag_groups", "use tags with tags_match"))
    if request.min_scores is not None:
        warnings.append(
            not_honoured("min_scores", "Mnemo's fused scores are ranks, not comparable floors")
        )
    return warnings


def bank_warnings(update: BankUpdate) -> list[str]:
    """The bank settings sent that Mnemo does not act on (they are not stored)."""
    return [
        not_honoured(field, "Mnemo has no such setting")
        for field in update.sent()
        if field in UNHONOURED_BANK_FIELDS
    ]


def config_view(bank: Bank, default_mode: ExtractionMode) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every setting's value on ``bank``, and the ones that differ from the defaults."""
    values: dict[str, Any] = {
        "retain_mission": bank.retain_mission,
        "retain_extraction_mode": bank.retain_extraction_mode,
        "retain_custom_instructions": bank.retain_custom_instructions,
        "entity_labels": list(msgspec.to_builtins(bank.entity_labels)),
        "reflect_mission": bank.reflect_mission,
        "background": bank.background,
        "disposition_skepticism": bank.disposition.skepticism,
        "disposition_literalism": bank.disposition.literalism,
        "disposition_empathy": bank.disposition.empathy,
        "enable_observations": bank.enable_observations,
        "observations_mission": bank.observations_mission,
    }
    defaults = {**_SETTINGS, "retain_extraction_mode": default_mode}
    overrides = {k: v for k, v in values.items() if v != defaults[k]}
    return values, overrides


def config_update(updates: dict[str, Any]) -> tuple[BankUpdate, list[str]]:
    """A ``PATCH .../config`` body as a bank update, and warnings for Hindsight-only settings.

    A setting neither Mnemo nor Hindsight defines is a 400 naming it.
    """
    known = set(BankUpdate.__struct_fields__) - {"name", "description"}
    unknown = sorted(k for k in updates if k not in known and k not in HINDSIGHT_ONLY_SETTINGS)
    if unknown:
        raise InvalidInput(
            f"unknown setting(s): {', '.join(unknown)}",
            extra={"field": f"$.updates.{unknown[0]}"},
        )
    warnings = [
        not_honoured(k, "Mnemo has no such setting")
        for k in sorted(updates)
        if k in HINDSIGHT_ONLY_SETTINGS
    ]
    body = {k: v for k, v in updates.items() if k in known}
    try:
        update = msgspec.convert(body, BankUpdate)
    except msgspec.ValidationError as exc:
        raise InvalidInput(
            f"{exc}".replace("$.", "$.updates.", 1), extra={"field": "updates"}
        ) from exc
    return update, [*warnings, *bank_warnings(update)]
