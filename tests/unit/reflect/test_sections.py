from __future__ import annotations

import pytest

from app.reflect.schemas import Section
from app.reflect.sections import (
    apply_operations,
    apply_with_ids,
    compare,
    operations_between,
    page_memory_ids,
    parse,
    render,
    render_section,
    slug,
    unique_id,
)

PAGE = [
    Section(id="likes", title="Likes", text="- Hiking [m1]", memory_ids=["m1"]),
    Section(id="work", title="Work", text="- Nurse at St Mary's [m2]", memory_ids=["m2"]),
    Section(id="family", title="Family", text="- Two kids [m3]", memory_ids=["m3"]),
]


def test_render_is_the_sections_in_order() -> None:
    assert render(PAGE).startswith("## Likes\n\n- Hiking [m1]\n\n## Work\n")
    assert render(PAGE) == "\n".join(render_section(s) for s in PAGE)


def test_slug_and_unique_ids() -> None:
    assert slug("Hobbies & Pets!") == "hobbies-pets"
    assert slug("***") == "section"
    assert unique_id("work", {"work", "work-2"}) == "work-3"


def test_parse_keeps_ids_of_known_titles_and_assigns_evidence_by_citation() -> None:
    markdown = "Intro line [m9]\n\n## work\nNow a teacher [m4]\n\n## New things\nA dog [m5]"
    sections = parse(markdown, previous=PAGE, memory_ids=["m4", "m5", "m9"])
    assert [s.id for s in sections] == ["answer", "work", "new-things"]
    assert sections[1].memory_ids == ["m4"]
    assert sections[0].memory_ids == ["m9"]


def test_parse_gives_a_headless_answer_one_section_with_all_evidence() -> None:
    [only] = parse("Caroline likes hiking.", memory_ids=["m1", "m2"])
    assert only.title == "Answer" and only.memory_ids == ["m1", "m2"]


def test_untouched_sections_stay_byte_identical_and_invalid_ops_are_listed() -> None:
    ops = [
        {"op": "replace", "id": "work", "text": "- Teacher since 2024 [m4]", "memory_ids": ["m4"]},
        {"op": "append", "id": "nope", "text": "x"},
        {
            "op": "add",
            "title": "Pets",
            "text": "- A dog [m5]",
            "after": "likes",
            "memory_ids": ["m5", "m99"],
        },
        {"op": "rename", "id": "family", "title": "Family and home"},
        {"op": "remove"},
        {"op": "explode", "id": "likes"},
        {"op": "add", "title": "Likes", "text": "dup"},
    ]
    new, applied, skipped = apply_operations(PAGE, ops, {"m4", "m5"})

    assert [s.id for s in new] == ["likes", "pets", "work", "family"]
    assert new[0] is PAGE[0]
    assert render_section(new[0]) == render_section(PAGE[0])
    assert new[2].text == "- Teacher since 2024 [m4]"
    assert new[3].title == "Family and home" and new[3].id == "family"
    assert new[1].memory_ids == ["m5"]
    assert applied[1]["dropped_memory_ids"] == ["m99"]
    reasons = [s["reason"] for s in skipped]
    assert len(skipped) == 4
    assert "no section 'nope'" in reasons[0]
    assert "needs 'id'" in reasons[1]
    assert "unknown op 'explode'" in reasons[2]
    assert "exists" in reasons[3]


def test_move_and_remove() -> None:
    moved, _, skipped = apply_operations(
        PAGE, [{"op": "move", "id": "family", "after": None}, {"op": "remove", "id": "work"}], set()
    )
    assert [s.id for s in moved] == ["family", "likes"]
    assert not skipped
    _, _, skipped = apply_operations(PAGE, [{"op": "move", "id": "work", "after": "work"}], set())
    assert "itself" in skipped[0]["reason"]


def test_operations_between_rebuild_the_new_page_and_keep_untouched_objects() -> None:
    new = [
        Section(id="work", title="Work", text="- Teacher [m4]", memory_ids=["m4"]),
        PAGE[0],
        Section(id="pets", title="Pets", text="- A dog [m5]", memory_ids=["m5"]),
    ]
    ops = operations_between(PAGE, new)
    rebuilt = apply_with_ids(PAGE, ops)
    assert rebuilt == new
    assert rebuilt[1] is PAGE[0]
    assert ops[0] == {"op": "remove", "id": "family"}


def test_compare_names_each_change_by_section() -> None:
    new = [
        Section(id="work", title="Job", text="- Teacher [m4]", memory_ids=["m4"]),
        PAGE[0],
        Section(id="pets", title="Pets", text="- A dog", memory_ids=[]),
    ]
    changes, unchanged = compare(PAGE, new)
    kinds = {c.id: c.change for c in changes}
    assert kinds == {
        "work": "renamed+edited+moved",
        "likes": "moved",
        "pets": "added",
        "family": "removed",
    }
    assert unchanged == 0
    assert next(c for c in changes if c.id == "work").previous_title == "Work"
    assert compare(PAGE, PAGE) == ([], 3)


def test_page_memory_ids_in_page_order() -> None:
    assert page_memory_ids(PAGE) == ["m1", "m2", "m3"]


@pytest.mark.parametrize("bad", [None, "text", {"op": "replace", "id": "work", "text": "  "}])
def test_malformed_operations_are_skipped(bad: object) -> None:
    new, applied, skipped = apply_operations(PAGE, [bad], set())
    assert new == PAGE and not applied and len(skipped) == 1
