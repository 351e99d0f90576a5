// One document with its original text, its active chunks in order (each with its fact count)
// and how many facts it produced.
// params: $bank_id, $document_id
// mode: read
MATCH (d:Document {bank_id: $bank_id, id: $document_id})
CALL (d) {
  OPTIONAL MATCH (m:Memory {bank_id: $bank_id, document_id: d.id})
  RETURN count(m) AS memory_count, count(CASE WHEN m.state = 'valid' THEN 1 END) AS valid_count
}
CALL (d) {
  OPTIONAL MATCH (c:Chunk {bank_id: $bank_id})-[:PART_OF]->(d)
  WHERE c.retired_at IS NULL
  WITH c ORDER BY c.index
  RETURN collect(c {.id, .index, .text, .content_hash, .created_at,
                    memory_count: COUNT { (:Memory)-[:FROM]->(c) }}) AS chunks
}
RETURN d {.id, .content_hash, .original_text, .tags, .metadata_json, .context, .timestamp,
          .entities_json, .resolve_entities, .created_at, .updated_at,
          memory_count: memory_count, valid_memory_count: valid_count,
          chunk_count: size(chunks), text_length: size(d.original_text)} AS document,
       chunks
