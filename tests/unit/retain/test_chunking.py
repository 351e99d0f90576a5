"""Chunking: verbatim, bounded, paragraph-first, and stable under edits elsewhere."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import unicodedata

import pytest

from app.retain.chunking import (
    Turn,
    chunk_conversation,
    chunk_text,
    parse_conversation,
    sentence_spans,
    split_content,
)

WORD_LIST = (
    "memory agent graph store fact entity recall retain vector neo4j qdrant the a of and to in "
    "is was with for on that this time event person place product meeting project"
)
WORDS = WORD_LIST.split()


def paragraph(rng: random.Random, words: int | None = None) -> str:
    count = words if words is not None else max(4, int(rng.lognormvariate(4.0, 0.7)))
    sentences: list[str] = []
    while count > 0:
        length = min(count, rng.randint(6, 18))
        sentence = " ".join(rng.choice(WORDS) for _ in range(length))
        sentences.append(sentence.capitalize() + ".")
        count -= length
    return " ".join(sentences)


def document(seed: int, paragraphs: int = 80) -> list[str]:
    rng = random.Random(seed)
    return [paragraph(rng) for _ in range(paragraphs)]


def hashes(text: str) -> list[str]:
    return [chunk.content_hash for chunk in chunk_text(text)]


def test_short_text_is_one_chunk_equal_to_the_trimmed_input() -> None:
    chunks = chunk_text("  Caroline went to the support group.\n\nIt was powerful.  \n")

    assert len(chunks) == 1
    assert chunks[0].text == "Caroline went to the support group.\n\nIt was powerful."
    assert (chunks[0].index, chunks[0].start, chunks[0].end, chunks[0].kind) == (0, 2, 55, "text")


def test_whitespace_only_text_gives_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\n\t ") == []


def test_content_hash_is_sha256_of_the_chunk_text() -> None:
    chunk = chunk_text("Ünïcode 🙂 text.")[0]

    assert chunk.content_hash == hashlib.sha256("Ünïcode 🙂 text.".encode()).hexdigest()


def test_chunks_are_verbatim_slices_within_the_target() -> None:
    text = "\n\n".join(document(1))

    chunks = chunk_text(text, target_chars=3000)

    assert len(chunks) > 5
    for index, chunk in enumerate(chunks):
        assert chunk.index == index
        assert chunk.text == text[chunk.start : chunk.end]
        assert len(chunk.text) <= 3000
    assert all(a.end <= b.start for a, b in itertools.pairwise(chunks))


def test_chunks_average_a_useful_size() -> None:
    text = "\n\n".join(document(2, paragraphs=200))

    sizes = [len(chunk.text) for chunk in chunk_text(text, target_chars=3000)]

    assert 1500 <= sum(sizes) / len(sizes) <= 3000


def test_chunks_start_and_end_on_paragraph_boundaries() -> None:
    paragraphs = document(3)
    text = "\n\n".join(paragraphs)
    starts = {text.index(p) for p in paragraphs}
    ends = {text.index(p) + len(p) for p in paragraphs}

    for chunk in chunk_text(text):
        assert chunk.start in starts
        assert chunk.end in ends


def test_no_text_is_lost_between_chunks() -> None:
    text = "\n\n".join(document(4))

    joined = " ".join(chunk.text for chunk in chunk_text(text))

    assert joined.split() == text.split()


def test_long_paragraph_is_cut_at_sentence_boundaries() -> None:
    rng = random.Random(5)
    text = paragraph(rng, words=900)  # one ~5,500-character paragraph

    chunks = chunk_text(text, target_chars=3000)

    assert len(chunks) >= 2
    for chunk in chunks:
        assert chunk.text.endswith(".")
        assert chunk.text[0].isupper()


def test_overlong_sentence_is_cut_at_whitespace_never_mid_word() -> None:
    words = [f"word{i}" for i in range(600)]
    text = " ".join(words)  # one sentence, no full stop

    chunks = chunk_text(text, target_chars=500)

    assert all(len(chunk.text) <= 500 for chunk in chunks)
    assert [w for chunk in chunks for w in chunk.text.split()] == words


def test_text_without_whitespace_is_cut_hard_but_not_inside_a_combining_sequence() -> None:
    text = "e\u0301" * 400  # 800 code points: e + combining acute, no spaces

    chunks = chunk_text(text, target_chars=101)

    assert "".join(chunk.text for chunk in chunks) == text
    for chunk in chunks:
        assert len(chunk.text) <= 101
        assert unicodedata.combining(chunk.text[0]) == 0


def test_unicode_of_every_kind_round_trips_exactly() -> None:
    text = "北京欢迎你。\n\nمرحبا بالعالم\n\nZoë 👩‍👩‍👧 naïve e\u0301 ﬁ"

    chunk = chunk_text(text)[0]

    assert chunk.text == text
    assert chunk.text.encode("utf-8") == text.encode("utf-8")


def test_boundaries_are_deterministic() -> None:
    text = "\n\n".join(document(6))

    assert hashes(text) == hashes(text)


@pytest.mark.parametrize("seed", range(8))
def test_editing_one_middle_paragraph_changes_only_the_chunks_around_it(seed: int) -> None:
    paragraphs = document(100 + seed, paragraphs=120)
    before = chunk_text("\n\n".join(paragraphs))
    edited = list(paragraphs)
    middle = len(edited) // 2
    edited[middle] = edited[middle][:-1] + ", and then one more clause was added to it."
    after = chunk_text("\n\n".join(edited))

    changed = {c.content_hash for c in after} - {c.content_hash for c in before}

    assert 1 <= len(changed) <= 3
    # Everything well before and well after the edit is byte-identical.
    assert [c.content_hash for c in before[:3]] == [c.content_hash for c in after[:3]]
    assert [c.content_hash for c in before[-3:]] == [c.content_hash for c in after[-3:]]


@pytest.mark.parametrize("seed", range(8))
def test_inserting_a_paragraph_keeps_distant_chunks(seed: int) -> None:
    paragraphs = document(200 + seed, paragraphs=120)
    rng = random.Random(seed)
    before = chunk_text("\n\n".join(paragraphs))
    edited = list(paragraphs)
    edited.insert(len(edited) // 2, paragraph(rng))
    after = chunk_text("\n\n".join(edited))

    changed = {c.content_hash for c in after} - {c.content_hash for c in before}

    assert len(changed) <= 3
    assert len(after) - len(changed) >= len(before) - 3


def test_equal_sized_paragraphs_resynchronise_after_an_insert() -> None:
    # Greedy packing never recovers here: every later chunk would shift by one paragraph.
    rng = random.Random(9)
    paragraphs = [f"Paragraph {i:03d} " + " ".join(rng.choice(WORDS) for _ in range(50)) + "."
                  for i in range(150)]  # fmt: skip
    before = chunk_text("\n\n".join(paragraphs))
    edited = list(paragraphs)
    edited.insert(20, "Paragraph new " + " ".join(rng.choice(WORDS) for _ in range(50)) + ".")
    after = chunk_text("\n\n".join(edited))

    changed = {c.content_hash for c in after} - {c.content_hash for c in before}

    assert len(changed) <= 3


def test_target_below_two_is_refused() -> None:
    with pytest.raises(ValueError, match="target_chars"):
        chunk_text("text", target_chars=1)


# -- sentences -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Smith went home. He slept.", ["Dr. Smith went home.", "He slept."]),
        ("J. K. Rowling wrote it. Yes!", ["J. K. Rowling wrote it.", "Yes!"]),
        ("It costs 3.5 dollars, e.g. cheap. Ok", ["It costs 3.5 dollars, e.g. cheap.", "Ok"]),
        ("He runs Acme Corp. The rest agree.", ["He runs Acme Corp.", "The rest agree."]),
        ("我去了北京。天气很好！你呢？", ["我去了北京。", "天气很好！", "你呢？"]),
        ("Caroline: Hey Mel! How are you?", ["Caroline: Hey Mel!", "How are you?"]),
        ("one line\nNext line", ["one line", "Next line"]),
        ("a hard-wrapped\nsentence goes on.", ["a hard-wrapped\nsentence goes on."]),
    ],
)
def test_sentence_spans_split_where_sentences_end(text: str, expected: list[str]) -> None:
    assert [text[a:b] for a, b in sentence_spans(text)] == expected


# -- conversations -------------------------------------------------------------------------------


def conversation(turns: int, seed: int = 0) -> list[dict[str, str]]:
    rng = random.Random(seed)
    speakers = ["Caroline", "Melanie"]
    return [
        {"speaker": speakers[i % 2], "text": paragraph(rng, words=rng.randint(5, 60))}
        for i in range(turns)
    ]


def test_conversation_json_is_split_on_turns_rendered_speaker_colon_text() -> None:
    turns = conversation(200)
    content = json.dumps(turns)

    chunks = split_content(content)

    assert len(chunks) > 3
    lines = [line for chunk in chunks for line in chunk.text.split("\n")]
    assert lines == [f"{t['speaker']}: {t['text']}" for t in turns]
    assert all(chunk.kind == "conversation" and len(chunk.text) <= 3000 for chunk in chunks)


def test_conversation_chunks_carry_turn_indexes_that_tile_the_conversation() -> None:
    chunks = chunk_conversation(
        [Turn(speaker=t["speaker"], text=t["text"]) for t in conversation(150)]
    )

    assert chunks[0].start == 0
    assert chunks[-1].end == 150
    assert all(a.end == b.start for a, b in itertools.pairwise(chunks))


def test_overlong_turn_is_split_and_every_piece_keeps_the_speaker() -> None:
    rng = random.Random(3)
    long_text = paragraph(rng, words=1200)
    chunks = chunk_conversation([Turn(speaker="Caroline", text=long_text)])

    assert len(chunks) >= 2
    for chunk in chunks:
        assert chunk.text.startswith("Caroline: ")
        assert len(chunk.text) <= 3000


def test_appending_turns_keeps_the_earlier_chunks() -> None:
    turns = [Turn(speaker=t["speaker"], text=t["text"]) for t in conversation(240, seed=4)]
    before = chunk_conversation(turns[:200])
    after = chunk_conversation(turns)

    assert [c.content_hash for c in before[:-1]] == [
        c.content_hash for c in after[: len(before) - 1]
    ]


def test_parse_conversation_accepts_role_and_content_keys() -> None:
    content = json.dumps(
        [{"role": "user", "content": "Hi there"}, {"role": "assistant", "content": "Hello!"}]
    )

    assert parse_conversation(content) == [
        Turn(speaker="user", text="Hi there"),
        Turn(speaker="assistant", text="Hello!"),
    ]


def test_parse_conversation_prefers_the_speaker_name_over_the_role() -> None:
    content = json.dumps([{"role": "user", "speaker": "Caroline", "text": "I went", "id": 3}])

    assert parse_conversation(content) == [Turn(speaker="Caroline", text="I went")]


@pytest.mark.parametrize(
    "content",
    [
        "[1, 2, 3]",
        '[{"speaker": "a"}]',
        '{"speaker": "a", "text": "b"}',
        "[not json",
        "[]",
        "Plain text [with brackets]",
        '[{"role": "user", "content": [{"type": "text"}]}]',
    ],
)
def test_other_content_is_chunked_as_text(content: str) -> None:
    assert parse_conversation(content) is None
    chunks = split_content(content)
    assert [c.text for c in chunks] == [content.strip()]
    assert chunks[0].kind == "text"


def test_conversation_keeps_unicode_exactly() -> None:
    content = json.dumps(
        [{"speaker": "李雷", "text": "我昨天去了北京 🙂 e\u0301"}], ensure_ascii=True
    )

    assert split_content(content)[0].text == "李雷: 我昨天去了北京 🙂 e\u0301"
