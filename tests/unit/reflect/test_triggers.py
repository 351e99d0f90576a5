from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.errors import InvalidInput
from app.reflect.mental_models import _interval_left, merge_trigger
from app.reflect.schemas import MentalModelTrigger, MentalModelTriggerInput


def test_a_trigger_patch_changes_only_the_fields_it_names() -> None:
    stored = MentalModelTrigger(mode="delta", budget="high", min_refresh_interval_seconds=60)
    merged = merge_trigger(stored, MentalModelTriggerInput(refresh_after_consolidation=True))
    assert merged == MentalModelTrigger(
        mode="delta",
        budget="high",
        min_refresh_interval_seconds=60,
        refresh_after_consolidation=True,
    )
    assert merge_trigger(stored, None) is stored
    assert merge_trigger(stored, MentalModelTriggerInput(tags_match=None)).tags_match == "any"


@pytest.mark.parametrize("field", ["refresh_cron", "full_refresh_cron", "tag_groups"])
def test_what_mnemo_does_not_do_is_refused_naming_the_field(field: str) -> None:
    value: object = [{"tags": ["a"]}] if field == "tag_groups" else "0 * * * *"
    with pytest.raises(InvalidInput) as refused:
        merge_trigger(MentalModelTrigger(), MentalModelTriggerInput(**{field: value}))  # type: ignore[arg-type]
    assert refused.value.extra == {"field": f"trigger.{field}"}
    # Sent empty, they change nothing and are accepted (Hindsight's clients send nulls).
    empty = MentalModelTriggerInput(**{field: None})  # type: ignore[arg-type]
    assert merge_trigger(MentalModelTrigger(), empty) == MentalModelTrigger()


def test_min_refresh_interval() -> None:
    now = datetime(2024, 1, 1, 12, tzinfo=UTC)
    trigger = MentalModelTrigger(min_refresh_interval_seconds=600)
    assert _interval_left(trigger, now - timedelta(seconds=100), now) == 500
    assert _interval_left(trigger, now - timedelta(seconds=600), now) is None
    assert _interval_left(trigger, None, now) is None
    assert _interval_left(MentalModelTrigger(), now, now) is None
