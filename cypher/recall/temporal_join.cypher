// Temporal channel: facts the vector store found inside the query window (filtered there by
// event-time overlap), joined to the graph in one round trip for their event times.
// Times as epoch milliseconds and one row with a list: the Python driver spends ~50 µs per record
// and ~45 µs per Neo4j DateTime.
// params: $bank_id, $hits [{id, score}]
// mode: read
UNWIND $hits AS hit
MATCH (m:Memory {bank_id: $bank_id, id: hit.id})
WHERE m.state = 'valid' AND coalesce(m.vector_pending, false) = false
RETURN collect({id: m.id, score: hit.score, occurred_start: m.occurred_start.epochMillis,
                occurred_end: m.occurred_end.epochMillis}) AS hits
