"""Pure document upsert planning: which chunks to extract, keep or retire.

Re-retaining a document compares chunk content hashes: unchanged chunks keep their facts,
new chunks are extracted, chunks that disappeared have their facts retired (invalidated, kept for
audit). The same content again plans no work at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from app.retain.chunking import Chunk


class StoredChunk(msgspec.Struct, frozen=True):
    """A chunk already in the graph."""

    id: str
    content_hash: str
    index: int


class StoredDocument(msgspec.Struct, frozen=True):
    """What the graph knows of a document before this retain."""

    content_hash: str
    chunks: tuple[StoredChunk, ...]


class ChunkPlan(msgspec.Struct, frozen=True):
    """One chunk of the new content: extract it, or keep the stored one with its facts."""

    chunk: Chunk
    chunk_id: str
    extract: bool


class DocumentPlan(msgspec.Struct, frozen=True):
    """What retaining this content into this document does."""

    document_id: str
    content_hash: str
    status: str  # created | updated | unchanged
    chunks: tuple[ChunkPlan, ...]
    retired_chunk_ids: tuple[str, ...]

    @property
    def to_extract(self) -> list[ChunkPlan]:
        """The chunks whose facts must be extracted now."""
        return [c for c in self.chunks if c.extract]


def chunk_id(document_id: str, chunk: Chunk, taken: set[str]) -> str:
    """A stable chunk id: the document id plus the chunk's hash (plus a counter for repeats)."""
    base = f"{document_id}#{chunk.content_hash[:16]}"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}~{n}"
    taken.add(candidate)
    return candidate


def plan_document(
    document_id: str,
    content_hash: str,
    chunks: Sequence[Chunk],
    stored: StoredDocument | None,
) -> DocumentPlan:
    """Compare new chunks with the stored ones by content hash."""
    if stored is not None and stored.content_hash == content_hash:
        kept = tuple(
            ChunkPlan(chunk=c, chunk_id=s.id, extract=False)
            for c, s in zip(chunks, sorted(stored.chunks, key=lambda s: s.index), strict=False)
        )
        return DocumentPlan(document_id, content_hash, "unchanged", kept, ())
    available: dict[str, list[StoredChunk]] = {}
    for s in sorted(stored.chunks if stored else (), key=lambda s: s.index):
        available.setdefault(s.content_hash, []).append(s)
    taken = {s.id for s in (stored.chunks if stored else ())}
    plans: list[ChunkPlan] = []
    for chunk in chunks:
        reusable = available.get(chunk.content_hash)
        if reusable:
            plans.append(ChunkPlan(chunk=chunk, chunk_id=reusable.pop(0).id, extract=False))
        else:
            plans.append(
                ChunkPlan(chunk=chunk, chunk_id=chunk_id(document_id, chunk, taken), extract=True)
            )
    retired = tuple(s.id for left in available.values() for s in left)
    status = "created" if stored is None else "updated"
    return DocumentPlan(document_id, content_hash, status, tuple(plans), retired)
