from __future__ import annotations

from app.reflect.citations import NOT_RETURNED, cited_ids, keep_citations, remove_citations

A = "0f8fad5b-d9cb-469f-a165-70867728950e"
B = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def test_cited_ids_are_known_ids_and_uuid_shaped_tokens() -> None:
    text = f"Hiking [{A}] and [sic] pottery [{B}] [m-1] [1]"
    assert cited_ids(text) == [A, B]
    assert cited_ids(text, known={"m-1"}) == [A, B, "m-1"]


def test_only_citations_a_tool_returned_are_kept() -> None:
    kept, dropped = keep_citations([A, B, A], returned={A})
    assert kept == [A]
    assert [(d.id, d.reason) for d in dropped] == [(B, NOT_RETURNED)]


def test_dropped_citations_leave_the_text() -> None:
    assert remove_citations(f"Hiking [{A}] and more [{B}].", [B]) == f"Hiking [{A}] and more."
