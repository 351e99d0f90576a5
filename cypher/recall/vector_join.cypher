// Vector hits joined to the graph in one round trip: keep only facts recall may show (valid and
// with a confirmed vector; the vector store's own state can lag a moment behind Neo4j's).
// params: $bank_id, $hits [{id, score}]
// mode: read
UNWIND $hits AS hit
MATCH (m:Memory {bank_id: $bank_id, id: hit.id})
WHERE m.state = 'valid' AND coalesce(m.vector_pending, false) = false
RETURN m.id AS id, hit.score AS score
