"""Hindsight compatibility rules: what is folded in, what is warned about, what is refused."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from app.api.compat import config_update, config_view, recall_warnings, retain_items
from app.curate.schemas.banks import Bank, BankUpdate
from app.curate.schemas.memories import Memory, MemoryEntity
from app.domain.banks import Disposition
from app.errors import InvalidInput
from app.recall.schemas import MentionedEntity, RecallRequest, RecallResult
from app.retain.schemas import RetainRequest

NOW = datetime(2024, 5, 1, tzinfo=UTC)


def _retain(body: dict[str, object]) -> RetainRequest:
    return msgspec.json.decode(msgspec.json.encode(body), type=RetainRequest)


def test_document_tags_join_every_items_tags_once() -> None:
    request = _retain(
        {
            "items": [{"content": "a", "tags": ["x", "batch"]}, {"content": "b"}],
            "document_tags": ["batch", "import"],
        }
    )
    items, warnings = retain_items(request)
    assert [i.tags for i in items] == [["x", "batch", "import"], ["batch", "import"]]
    assert warnings == []


def test_unhonoured_retain_keys_are_named_and_replace_mode_is_not() -> None:
    request = _retain(
        {
            "items": [
                {"content": "a", "observation_scopes": [["a", "b"]], "update_mode": "replace"},
                {"content": "b", "strategy": "fast", "update_mode": "append"},
            ],
            "operation_id": "op-1",
        }
    )
    _, warnings = retain_items(request)
    named = {w.split(":")[0] for w in warnings}
    assert named == {"operation_id", "observation_scopes", "strategy", "update_mode"}
    assert all("accepted but not honoured" in w for w in warnings)


def test_combined_observation_scopes_are_what_consolidation_does_so_not_warned() -> None:
    combined = _retain(
        {"items": [{"content": "a", "tags": ["x"], "observation_scopes": "combined"}]}
    )
    assert retain_items(combined)[1] == []
    per_tag = _retain({"items": [{"content": "a", "observation_scopes": "per_tag"}]})
    assert [w.split(":")[0] for w in retain_items(per_tag)[1]] == ["observation_scopes"]


def test_hindsight_recall_keys_decode_and_the_unhonoured_ones_are_warned() -> None:
    body = {
        "query": "q",
        "include": {"entities": {"max_tokens": 500}, "chunks": {"max_tokens": 100}},
        "tag_groups": [{"tags": ["a"], "match": "all"}],
        "min_scores": {"semantic": 0.2},
        "prefer_observations": True,
    }
    request = msgspec.json.decode(msgspec.json.encode(body), type=RecallRequest)
    named = {w.split(":")[0] for w in recall_warnings(request)}
    # prefer_observations and include.source_facts are honoured (observations exist).
    assert named == {"tag_groups", "min_scores"}
    honoured = msgspec.json.decode(
        b'{"query": "q", "prefer_observations": true, "include": {"source_facts":'
        b' {"max_tokens": -1, "max_tokens_per_observation": 200}}}',
        type=RecallRequest,
    )
    assert recall_warnings(honoured) == []
    assert recall_warnings(RecallRequest(query="q")) == []
    with pytest.raises(msgspec.ValidationError, match="colour"):
        msgspec.json.decode(b'{"query": "q", "colour": 1}', type=RecallRequest)


def _bank(**fields: object) -> Bank:
    return Bank(id="b", name="b", created_at=NOW, updated_at=NOW, **fields)  # type: ignore[arg-type]


def test_config_view_shows_every_setting_and_only_changed_ones_as_overrides() -> None:
    config, overrides = config_view(_bank(), "local")
    assert config["disposition_empathy"] == 3 and config["retain_extraction_mode"] == "local"
    assert overrides == {}
    _, changed = config_view(
        _bank(retain_extraction_mode="chunks", disposition=Disposition(empathy=5)), "local"
    )
    assert changed == {"retain_extraction_mode": "chunks", "disposition_empathy": 5}


def test_config_update_accepts_hindsight_settings_and_refuses_unknown_ones() -> None:
    update, warnings = config_update({"retain_mission": "m", "recall_budget_max": 5})
    assert update.retain_mission == "m"
    assert [w.split(":")[0] for w in warnings] == ["recall_budget_max"]
    _, chunk = config_update({"retain_chunk_size": 100})
    assert chunk[0].startswith("retain_chunk_size")
    with pytest.raises(InvalidInput, match="unknown setting"):
        config_update({"no_such_setting": 1})
    with pytest.raises(InvalidInput, match="updates"):
        config_update({"disposition_empathy": 9})


def test_bank_answers_hindsight_profile_fields() -> None:
    bank = msgspec.convert(msgspec.to_builtins(_bank(reflect_mission="Help.")), Bank)
    assert (bank.bank_id, bank.mission) == ("b", "Help.")
    assert _bank().mission == ""
    update = msgspec.convert({"mission": "old", "reflect_mission": "new"}, BankUpdate)
    assert update.sent() == ["reflect_mission", "mission"]


def test_entities_are_names_for_hindsight_and_objects_under_mentions() -> None:
    mentions = [
        MemoryEntity(id="e1", name="Caroline", mention="Caro"),
        MemoryEntity(id="e2", name="Lisbon"),
    ]
    memory = Memory(id="m", text="t", type="world", mentions=mentions, occurred_start=NOW)
    assert memory.entities == "Caroline, Lisbon" and memory.fact_type == "world"
    assert memory.date == NOW.isoformat()
    wire = msgspec.json.decode(msgspec.json.encode(memory))
    assert wire["entities"] == "Caroline, Lisbon" and wire["mentions"][0]["mention"] == "Caro"
    result = RecallResult(
        id="m",
        text="t",
        type="world",
        mentions=[MentionedEntity(id="e1", name="Caroline", mention="Caro")],
        context=None,
        occurred_start=None,
        occurred_end=None,
        mentioned_at=None,
        document_id=None,
        metadata=None,
        tags=[],
        scores={"final": 1.0},
    )
    assert result.entities == ["Caroline"]
