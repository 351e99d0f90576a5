// New facts, each FROM its chunk, with a typed label. vector_pending stays true until the
// vector store confirms the vector: recall ignores pending facts, reconciliation repairs them.
// params: $bank_id, $bank_key, $memories [{id, text, context, fact_type, fact_kind,
//   occurred_start, occurred_end, mentioned_at, tags, tag_tokens, metadata_json, document_id,
//   chunk_id, entity_names, where, who, why}]
// mode: write
UNWIND $memories AS mem
MATCH (c:Chunk {bank_id: $bank_id, id: mem.chunk_id})
CREATE (m:Memory {bank_id: $bank_id, id: mem.id})
SET m += mem, m.bank_key = $bank_key, m.state = 'valid', m.proof_count = 1,
    m.vector_pending = true, m.created_at = datetime()
FOREACH (_ IN CASE WHEN mem.fact_type = 'world' THEN [1] ELSE [] END | SET m:World)
FOREACH (_ IN CASE WHEN mem.fact_type = 'experience' THEN [1] ELSE [] END | SET m:Experience)
FOREACH (_ IN CASE WHEN mem.fact_type = 'observation' THEN [1] ELSE [] END | SET m:Observation)
CREATE (m)-[:FROM]->(c)
