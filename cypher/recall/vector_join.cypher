// Vector hits joined to the graph in one round trip: keep only facts recall may show (valid and
// with a confirmed vector; the vector store's own state can lag a moment behind Neo4j's).
// One row with a list: the Python driver spends ~50 µs per record, far more than per list item.
// params: $bank_id, $hits [{id, score}]
// mode: read
UNWIND $hits AS hit
MATCH (m:Memory {bank_id: $bank_id, id: hit.id})
WHERE m.state = 'valid' AND coalesce(m.vector_pending, false) = false
RETURN collect({id: m.id, score: hit.score}) AS hits
