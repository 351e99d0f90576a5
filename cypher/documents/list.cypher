// One page of a bank's documents, newest first (created_at descending, id ascending), each with
// how many facts it produced (all states, and valid ones), its active chunks and its sort key.
// The documents are read in the order of the (bank_id, created_at) index from the cursor's key
// on ($before, or the latest time; $after_id null: no cursor), so a page costs its rows (plus
// those $empty skips), never a sort of the whole bank. $empty = true keeps documents that
// produced no fact, false those that did, null all.
// params: $bank_id, $before, $after_id, $empty, $offset, $limit
// mode: read
MATCH (d:Document {bank_id: $bank_id})
WHERE d.created_at <= datetime($before)
  AND ($after_id IS NULL OR d.created_at < datetime($before) OR d.id > $after_id)
// bank_id (constant here) leads the order so that the planner takes the composite index's order.
WITH d ORDER BY d.bank_id DESC, d.created_at DESC, d.id
CALL (d) {
  OPTIONAL MATCH (m:Memory {bank_id: $bank_id, document_id: d.id})
  RETURN count(m) AS memory_count, count(CASE WHEN m.state = 'valid' THEN 1 END) AS valid_count
}
WITH d, memory_count, valid_count
WHERE $empty IS NULL OR (memory_count = 0) = $empty
SKIP $offset LIMIT $limit
CALL (d) {
  OPTIONAL MATCH (c:Chunk {bank_id: $bank_id})-[:PART_OF]->(d)
  WHERE c.retired_at IS NULL
  RETURN count(c) AS chunk_count
}
RETURN d {.id, .content_hash, .tags, .metadata_json, .context, .timestamp, .created_at,
          .updated_at, memory_count: memory_count, valid_memory_count: valid_count,
          chunk_count: chunk_count, text_length: size(d.original_text)} AS document,
       [toString(d.created_at), d.id] AS key
