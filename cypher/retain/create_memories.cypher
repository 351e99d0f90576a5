// New facts, each FROM its chunk, with a typed label. vector_pending stays true until the
// vector store confirms the vector: recall ignores pending facts, reconciliation repairs them.
// Every new fact waits for consolidation (app/consolidate) once its vector is published.
// params: $bank_id, $bank_key, $memories [{fields: {id, text, context, fact_type, fact_kind,
//   tags, tag_tokens, metadata_json, document_id, chunk_id, entity_names, where, who, why},
//   occurred_start, occurred_end, mentioned_at}]
// Times arrive as ISO 8601 text (app/store/graph.py cypher_datetime) and become datetimes here.
// mode: write
UNWIND $memories AS mem
MATCH (c:Chunk {bank_id: $bank_id, id: mem.fields.chunk_id})
CREATE (m:Memory {bank_id: $bank_id, id: mem.fields.id})
SET m += mem.fields, m.occurred_start = datetime(mem.occurred_start),
    m.occurred_end = datetime(mem.occurred_end), m.mentioned_at = datetime(mem.mentioned_at),
    m.bank_key = $bank_key, m.state = 'valid', m.proof_count = 1,
    m.vector_pending = true, m.created_at = datetime(), m.consolidation_state = 'pending'
FOREACH (_ IN CASE WHEN mem.fields.fact_type = 'world' THEN [1] ELSE [] END | SET m:World)
FOREACH (_ IN CASE WHEN mem.fields.fact_type = 'experience' THEN [1] ELSE [] END | SET m:Experience)
FOREACH (_ IN CASE WHEN mem.fields.fact_type = 'observation' THEN [1] ELSE [] END | SET m:Observation)
CREATE (m)-[:FROM]->(c)
