// Chunks that left their document: mark them retired and invalidate their facts (kept for
// audit, out of recall); returns the retired fact ids so their vectors follow (pending until
// the vector store has the new state).
// params: $bank_id, $chunk_ids, $reason
// mode: write
UNWIND $chunk_ids AS chunk_id
MATCH (c:Chunk {bank_id: $bank_id, id: chunk_id})
SET c.retired_at = datetime()
WITH c
OPTIONAL MATCH (m:Memory {bank_id: $bank_id})-[:FROM]->(c)
WHERE m.state = 'valid'
SET m.state = 'invalidated', m.state_reason = $reason, m.state_changed_at = datetime(),
    m.vector_pending = true
RETURN c.id AS chunk_id, collect(m.id) AS memory_ids
