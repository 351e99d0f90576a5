from __future__ import annotations

from datetime import date

import msgspec

from app.console.charts import MAX_BARS, activity_bars, segments


class Row(msgspec.Struct, frozen=True):
    day: date
    type: str
    count: int


def test_a_short_span_gets_one_bar_per_day_with_empty_days_kept() -> None:
    chart = activity_bars(
        [Row(date(2024, 5, 1), "world", 3), Row(date(2024, 5, 3), "experience", 2)]
    )
    assert chart.unit == "day"
    assert [b.label for b in chart.bars] == ["2024-05-01", "2024-05-02", "2024-05-03"]
    assert [b.total for b in chart.bars] == [3, 0, 2]
    assert chart.peak == 3 and chart.types == ["world", "experience"]


def test_a_long_span_is_binned_by_week_then_by_month() -> None:
    weeks = activity_bars([Row(date(2024, 1, 1), "world", 1), Row(date(2024, 6, 30), "world", 1)])
    assert weeks.unit == "week" and len(weeks.bars) <= MAX_BARS
    assert weeks.bars[0].start == date(2024, 1, 1)  # a Monday
    months = activity_bars(
        [Row(date(2021, 1, 15), "world", 4), Row(date(2021, 1, 20), "world", 1),
         Row(date(2023, 12, 31), "observation", 2)]
    )  # fmt: skip
    assert months.unit == "month"
    assert months.bars[0].label == "2021-01" and months.bars[0].total == 5
    assert months.bars[-1].label == "2023-12" and len(months.bars) == 36


def test_a_span_longer_than_the_bars_keeps_the_latest_months() -> None:
    chart = activity_bars([Row(date(2000, 1, 1), "world", 1), Row(date(2020, 1, 1), "world", 7)])
    assert len(chart.bars) == MAX_BARS and chart.bars[-1].label == "2020-01"
    assert chart.peak == 7


def test_no_rows_no_bars() -> None:
    assert activity_bars([]).bars == []


def test_segments_stack_bottom_up_scaled_to_the_peak() -> None:
    chart = activity_bars(
        [Row(date(2024, 5, 1), "world", 2), Row(date(2024, 5, 1), "observation", 2)]
    )
    assert segments(chart.bars[0], chart.types, 8, 100) == [
        ("world", 75.0, 25.0),
        ("observation", 50.0, 25.0),
    ]
