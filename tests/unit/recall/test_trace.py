from datetime import UTC, datetime

import msgspec
import pytest

from app.recall.candidates import TimeWindow, ranked
from app.recall.fusion import rrf
from app.recall.recipes import MID
from app.recall.trace import BudgetTrace, ChannelTrace, RecallTrace


def test_trace_serialises_channels_fusion_and_timings():
    vector = ranked("vector", [("a", 0.9), ("b", 0.7)], elapsed_ms=1.5)
    keyword = ranked("keyword", [("b", 7.2)], elapsed_ms=2.0)
    trace = RecallTrace(
        recipe=MID,
        channels=(
            ChannelTrace.of(vector),
            ChannelTrace.of(keyword),
            ChannelTrace(channel="temporal", status="skipped", detail="no time expression"),
        ),
        fusion=tuple(rrf([vector, keyword])),
        budget=BudgetTrace(max_tokens=4096, used_tokens=12, kept=2, dropped=0),
        timings_ms={"vector": 1.5, "keyword": 2.0, "fusion": 0.1, "total": 4.0},
        query_window=TimeWindow(
            start=datetime(2024, 5, 1, tzinfo=UTC), end=datetime(2024, 5, 31, tzinfo=UTC)
        ),
    )
    data = msgspec.to_builtins(trace)
    assert data["channels"][0]["candidates"][0] == {"id": "a", "score": 0.9, "rank": 1}
    assert data["channels"][2]["status"] == "skipped"
    first = data["fusion"][0]
    assert first["id"] == "b"
    assert set(first["channels"]) == {"vector", "keyword"}
    assert first["channels"]["keyword"]["rank"] == 1
    assert data["timings_ms"]["total"] == 4.0
    assert data["query_window"]["start"] == "2024-05-01T00:00:00Z"


def test_time_window_must_not_end_before_it_starts():
    with pytest.raises(ValueError, match="window"):
        TimeWindow(start=datetime(2024, 6, 1), end=datetime(2024, 5, 1))
