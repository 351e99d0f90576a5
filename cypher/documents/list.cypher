// One page of a bank's documents, newest first, with the total, each with how many facts it
// produced (all states, and valid ones) and its active chunks; $empty = true keeps documents
// that produced no fact, false those that did, null all.
// params: $bank_id, $empty, $offset, $limit
// mode: read
MATCH (d:Document {bank_id: $bank_id})
CALL (d) {
  OPTIONAL MATCH (m:Memory {bank_id: $bank_id, document_id: d.id})
  RETURN count(m) AS memory_count, count(CASE WHEN m.state = 'valid' THEN 1 END) AS valid_count
}
WITH d, memory_count, valid_count
WHERE $empty IS NULL OR (memory_count = 0) = $empty
CALL (d) {
  OPTIONAL MATCH (c:Chunk {bank_id: $bank_id})-[:PART_OF]->(d)
  WHERE c.retired_at IS NULL
  RETURN count(c) AS chunk_count
}
WITH d, memory_count, valid_count, chunk_count
ORDER BY d.created_at DESC, d.id
WITH collect(d {.id, .content_hash, .tags, .metadata_json, .context, .timestamp, .created_at,
                .updated_at, memory_count: memory_count, valid_memory_count: valid_count,
                chunk_count: chunk_count, text_length: size(d.original_text)}) AS docs
RETURN size(docs) AS total, docs[$offset..($offset + $limit)] AS items
