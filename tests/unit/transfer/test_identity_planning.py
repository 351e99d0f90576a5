"""The pure parts of export/import: reading JSONL, matching memories, planning identity repairs."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from app.curate.schemas.banks import BankUpdate
from app.curate.schemas.memories import Memory, MemoryEntity
from app.retain.schemas import RetainItem
from app.transfer.format import (
    ExportBank,
    ExportDocument,
    ExportEntity,
    ExportMemory,
    ExportMention,
    parse_lines,
)
from app.transfer.identity import Merge, Split, match_memories, memory_fix, plan_identities

T0 = datetime(2024, 5, 1, tzinfo=UTC)


def old(
    memory_id: str, text: str, *mentions: tuple[str, str], document: str = "d1", **kw: object
) -> ExportMemory:
    """An exported memory; mentions are (exported entity id, surface text)."""
    return ExportMemory(
        id=memory_id,
        document_id=document,
        text=text,
        entities=[ExportMention(entity_id=e, name=s, mention=s) for e, s in mentions],
        **kw,  # type: ignore[arg-type]
    )


def new(memory_id: str, text: str, *mentions: tuple[str, str, str], document: str = "d1") -> Memory:
    """A memory of the new bank; mentions are (entity id, canonical name, surface text)."""
    return Memory(
        id=memory_id,
        text=text,
        type="world",
        document_id=document,
        mentions=[MemoryEntity(id=e, name=n, mention=s) for e, n, s in mentions],
    )


def test_lines_decode_into_items_export_records_or_errors_with_their_numbers() -> None:
    header = ExportBank(exported_at=T0, id="b", config=BankUpdate(name="b"))
    document = ExportDocument(item=RetainItem(content="hello", document_id="x"))
    lines = [
        msgspec.json.encode(header),
        b"",
        msgspec.json.encode(document).decode(),
        '{"content": "plain item", "tags": ["t"]}',
        '{"content": 3}',
        "[1, 2",
        '{"kind": "mystery"}',
    ]
    parsed = list(parse_lines(lines))
    assert [p.line for p in parsed] == [1, 3, 4, 5, 6, 7]
    assert parsed[0].record == header and parsed[1].record == document
    assert parsed[2].item == RetainItem(content="plain item", tags=["t"])
    assert parsed[3].error is not None and "$.content" in parsed[3].error
    assert parsed[4].error is not None and parsed[4].error.startswith("not a JSON object")
    assert parsed[5].error is not None and "mystery" in parsed[5].error


def test_memories_match_by_document_and_extracted_text_in_order() -> None:
    exported = [
        old("o1", "Same text."),
        old("o2", "Same text."),
        old("o3", "Edited text.", extracted_text="Original text."),
        old("o4", "Only in the export."),
        old("o5", "Same text.", document="d2"),
    ]
    current = [
        new("n1", "Same text."),
        new("n2", "Same text."),
        new("n3", "Original text."),
        new("n4", "Same text.", document="d3"),
    ]
    pairs, unmatched = match_memories(exported, current)
    assert [(o.id, n.id) for o, n in pairs] == [("o1", "n1"), ("o2", "n2"), ("o3", "n3")]
    assert [o.id for o in unmatched] == ["o4", "o5"]


def test_memory_fix_patches_only_what_differs() -> None:
    entities = {"e1": ExportEntity(id="e1", name="Sarah Chen", type="person")}
    same = old("o1", "Sarah Chen called.", ("e1", "Sarah Chen"))
    assert (
        memory_fix(
            same, new("n1", "Sarah Chen called.", ("x", "Sarah Chen", "sarah chen")), entities
        )
        is None
    )

    edited = old("o1", "Sarah Chen called twice.", ("e1", "Sarah"), extracted_text="Sarah called.")
    fix = memory_fix(edited, new("n1", "Sarah called.", ("x", "Sarah", "Sarah")), entities)
    assert fix is not None and fix.text == "Sarah Chen called twice."
    assert [(h.text, h.type) for h in fix.entities] == [("Sarah", "person")]  # type: ignore[union-attr]

    # Caller entities the export could not carry: the mentions are put back.
    bare = memory_fix(same, new("n1", "Sarah Chen called."), entities)
    assert bare is not None and [h.text for h in bare.entities] == ["Sarah Chen"]  # type: ignore[union-attr]
    assert bare.text is msgspec.UNSET

    dated = old("o1", "Sarah Chen called.", ("e1", "Sarah Chen"), occurred_start=T0)
    timed = memory_fix(
        dated, new("n1", "Sarah Chen called.", ("x", "Sarah Chen", "Sarah Chen")), entities
    )
    assert timed is not None and timed.occurred_start == T0 and timed.entities is msgspec.UNSET


def test_a_new_entity_holding_two_exported_entities_is_split_keeping_the_namesake() -> None:
    pairs = [
        (old("o1", "a", ("kim", "Alex Kim")), new("n1", "a", ("X", "Alex Kim", "Alex Kim"))),
        (old("o2", "b", ("kim", "Alex Kim")), new("n2", "b", ("X", "Alex Kim", "Alex Kim"))),
        (old("o3", "c", ("jr", "Alex Kim")), new("n3", "c", ("X", "Alex Kim", "Alex Kim"))),
    ]
    plan = plan_identities(pairs, {"kim": "Alex Kim", "jr": "Alex Kim Jr."})
    assert plan.splits == [Split("X", ["n3"], "Alex Kim Jr.")]


def test_new_entities_holding_one_exported_entity_are_merged_into_its_namesake() -> None:
    pairs = [
        (
            old("o1", "a", ("dana", "Dana Whitfield"), ("acme", "Acme")),
            new("n1", "a", ("D", "Dana Whitfield", "Dana Whitfield"), ("A", "Acme", "Acme")),
        ),
        (
            old("o2", "b", ("dana", "Dr. Whitfield")),
            new("n2", "b", ("W", "Dr. Whitfield", "Dr. Whitfield")),
        ),
        (
            old("o3", "c", ("dana", "Dr. Whitfield")),
            new("n3", "c", ("W", "Dr. Whitfield", "Dr. Whitfield")),
        ),
    ]
    plan = plan_identities(pairs, {"dana": "Dana Whitfield", "acme": "Acme"})
    # The one called like the exported entity stays, though the other has more mentions.
    assert plan.splits == [] and plan.merges == [Merge(gone="W", keep="D")]
    assert plan.new_of == {"dana": "D", "acme": "A"}


def test_equal_partitions_need_no_repair() -> None:
    pairs = [
        (old("o1", "a", ("p", "Priya")), new("n1", "a", ("P", "Priya", "Priya"))),
        (old("o2", "b", ("p", "priya")), new("n2", "b", ("P", "Priya", "PRIYA"))),
    ]
    plan = plan_identities(pairs, {"p": "Priya"})
    assert (plan.splits, plan.merges, plan.new_of) == ([], [], {"p": "P"})
