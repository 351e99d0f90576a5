"""The HTTP client without a server: error decoding, paths, query parameters, paging."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import msgspec
import pytest

from app.cli import build_parser
from app.cli.common import default_url
from app.cli.output import ProgressBar, cell, render, table
from app.client import ApiError, MnemoClient, api_error, drop_none
from app.config import load_settings


def client_for(handler: Callable[[httpx.Request], httpx.Response]) -> MnemoClient:
    return MnemoClient("http://mnemo.test/", transport=httpx.MockTransport(handler))


def bank_json(bank_id: str) -> dict[str, Any]:
    return {
        "id": bank_id,
        "name": bank_id,
        "created_at": "2024-05-01T09:00:00Z",
        "updated_at": "2024-05-01T09:00:00Z",
        "counts": {"memories": 3, "entities": 2, "documents": 1},
    }


def test_an_error_answer_raises_api_error_with_detail_and_extra() -> None:
    body = {"status_code": 400, "detail": "bad timestamp", "extra": {"field": "$.items[0]"}}
    response = httpx.Response(400, json=body)
    error = api_error(response)
    assert (error.status_code, error.detail, error.extra) == (
        400,
        "bad timestamp",
        {"field": "$.items[0]"},
    )
    assert str(error) == "400: bad timestamp"


def test_an_error_without_json_keeps_its_text_or_reason() -> None:
    text = api_error(httpx.Response(502, text="upstream went away"))
    assert (text.status_code, text.detail, text.extra) == (502, "upstream went away", None)
    empty = api_error(httpx.Response(503))
    assert empty.detail == "Service Unavailable"
    odd = api_error(httpx.Response(422, json=["not", "an", "object"]))
    assert odd.detail == '["not","an","object"]'


def test_calls_raise_api_error_and_decode_answers_into_server_structs() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/missing"):
            return httpx.Response(404, json={"status_code": 404, "detail": "bank 'missing'"})
        return httpx.Response(200, json=bank_json("alice"))

    with client_for(handler) as client:
        bank = client.get_bank("alice")
        assert bank.counts.memories == 3 and bank.created_at.year == 2024
        with pytest.raises(ApiError) as caught:
            client.get_bank("missing")
    assert caught.value.status_code == 404


def test_ids_are_percent_encoded_and_unset_filters_are_not_sent() -> None:
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        page = {"items": [], "total": 0, "limit": 100, "offset": 0}
        if "/documents/" in request.url.raw_path.decode():
            return httpx.Response(404, json={"detail": "no"})
        return httpx.Response(200, json=page)

    with client_for(handler) as client:
        client.list_memories("b1", types=["world", "experience"], tags=None, state="valid")
        with pytest.raises(ApiError):
            client.get_document("b1", "conv/a b?#1")
    listing, document = seen
    assert listing.params.get_list("type") == ["world", "experience"]
    assert listing.params["state"] == "valid" and "tags" not in listing.params
    assert "tags_match" not in listing.params
    assert document.raw_path.decode() == "/v1/default/banks/b1/documents/conv%2Fa%20b%3F%231"
    assert drop_none({"a": None, "b": [], "c": 0, "d": "x"}) == {"c": 0, "d": "x"}


def test_iterators_walk_every_page() -> None:
    offsets: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params["offset"])
        limit = int(request.url.params["limit"])
        offsets.append(offset)
        ids = [f"b{n}" for n in range(offset, min(offset + limit, 2500))]
        page = {"banks": [bank_json(i) for i in ids], "total": 2500, "limit": limit}
        return httpx.Response(200, json={**page, "offset": offset})

    with client_for(handler) as client:
        banks = list(client.iter_banks())
    assert len(banks) == 2500 and banks[-1].id == "b2499"
    assert offsets == [0, 1000, 2000]


def test_retain_sends_the_async_flag_under_its_wire_name() -> None:
    sent: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(msgspec.json.decode(request.content))
        answer = {"success": True, "bank_id": "b", "items_count": 1, "memory_ids": []}
        return httpx.Response(200, json={**answer, "async": True, "operation_id": "op-1"})

    from app.retain.schemas import RetainItem

    with client_for(handler) as client:
        answer = client.retain("b", [RetainItem(content="hi")], run_async=True)
    assert answer.operation_id == "op-1" and answer.async_ is True
    assert sent[0]["async"] is True and sent[0]["items"][0]["content"] == "hi"


def test_default_url_follows_the_serve_settings() -> None:
    assert default_url(load_settings({})) == "http://127.0.0.1:8888"
    assert default_url(load_settings({"MNEMO_HOST": "0.0.0.0", "MNEMO_PORT": "9"})) == (
        "http://127.0.0.1:9"
    )
    assert default_url(load_settings({"MNEMO_HOST": "::1"})) == "http://[::1]:8888"


def test_every_client_command_takes_url_bank_and_json() -> None:
    args = build_parser().parse_args(
        ["memories", "list", "--bank", "b", "--url", "http://x", "--json", "--type", "world"]
    )
    assert (args.bank, args.url, args.json, args.type) == ("b", "http://x", True, ["world"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["recall", "query"])  # --bank is required


def test_tables_and_progress_are_plain_text() -> None:
    import io

    out = io.StringIO()
    table(out, [{"id": "m1", "text": "a " * 50}], widths={"text": 10})
    header, row = out.getvalue().splitlines()
    assert header.split() == ["ID", "TEXT"] and row.endswith("a a a a a…")
    assert cell(None) == "" and cell(["a", "b"]) == "a, b" and cell(0.123456) == "0.1235"
    assert render("retain", 5, 10, width=10) == "retain     [#####.....]  50%  5/10"
    assert render("export", 7, None) == "export     7"

    stream = io.StringIO()
    bar = ProgressBar(stream, interval_s=3600)
    for done in range(1, 11):
        bar("retain", done, 10)
    bar.close()
    # Not a terminal: the first and the last state, no carriage returns.
    assert stream.getvalue().splitlines() == [render("retain", 1, 10), render("retain", 10, 10)]


def test_on_a_terminal_the_progress_bar_redraws_one_line() -> None:
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    bar = ProgressBar(stream, interval_s=0)
    bar("retain", 1, 2)
    bar("retain", 2, 2)
    bar("retain", 2, 2)  # the same state is not drawn again
    bar.close()
    assert stream.getvalue() == f"\r{render('retain', 1, 2)}\r{render('retain', 2, 2)}\n"
