// The stored content hash and chunks of the given documents (for upsert planning).
// params: $bank_id, $document_ids
// mode: read
UNWIND $document_ids AS document_id
MATCH (d:Document {bank_id: $bank_id, id: document_id})
OPTIONAL MATCH (c:Chunk {bank_id: $bank_id})-[:PART_OF]->(d)
WHERE c.retired_at IS NULL
RETURN d.id AS document_id, d.content_hash AS content_hash,
       collect(c {.id, .content_hash, .index}) AS chunks
