"""Rows read while a concurrent transaction deletes their nodes (see ``convert_rows``)."""

from __future__ import annotations

import msgspec
import pytest

from app.store.graph import convert_rows


class _Item(msgspec.Struct):
    id: str


class _Row(msgspec.Struct):
    item: _Item


class _Page(msgspec.Struct):
    total: int
    items: list[_Item]


def test_a_row_whose_node_was_deleted_meanwhile_is_left_out() -> None:
    rows = [{"item": {"id": "a"}}, {"item": {}}]
    assert convert_rows(rows, _Row) == [_Row(item=_Item(id="a"))]


def test_a_deleted_node_in_a_list_is_left_out_of_the_list_only() -> None:
    rows = [{"total": 2, "items": [{"id": "a"}, {}]}]
    assert convert_rows(rows, _Page) == [_Page(total=2, items=[_Item(id="a")])]


def test_a_projection_of_a_node_deleted_meanwhile_is_left_out() -> None:
    # ``m {.id, .state}`` of a node deleted after the match: every key null.
    rows = [{"item": {"id": "a"}}, {"item": {"id": None}}]
    assert convert_rows(rows, _Row) == [_Row(item=_Item(id="a"))]
    rows = [{"total": 2, "items": [{"id": "a"}, {"id": None}]}]
    assert convert_rows(rows, _Page) == [_Page(total=2, items=[_Item(id="a")])]


def test_a_record_that_is_malformed_for_another_reason_still_fails() -> None:
    with pytest.raises(msgspec.ValidationError):
        convert_rows([{"item": {"name": "no id"}}], _Row)
