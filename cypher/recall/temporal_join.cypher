// Temporal channel: facts the vector store found inside the query window (filtered there by
// event-time overlap), joined to the graph in one round trip for their event times.
// params: $bank_id, $hits [{id, score}]
// mode: read
UNWIND $hits AS hit
MATCH (m:Memory {bank_id: $bank_id, id: hit.id})
WHERE m.state = 'valid' AND coalesce(m.vector_pending, false) = false
RETURN m.id AS id, hit.score AS score, m.occurred_start AS occurred_start,
       m.occurred_end AS occurred_end
