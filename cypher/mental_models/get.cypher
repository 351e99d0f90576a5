// Reading a mental model: its page, settings and the evidence of its current version
// ((:MentalModel)-[:BASED_ON {rank}]->(:Memory)), in one query; no recall, no LLM.
// params: $bank_id, $id
// mode: read
MATCH (mm:MentalModel {bank_id: $bank_id, id: $id})
RETURN mm {.*, embedding: null} AS model,
       [(mm)-[r:BASED_ON]->(m:Memory) | {
         rank: r.rank, id: m.id, text: m.text, type: m.fact_type, context: m.context,
         occurred_start: m.occurred_start.epochMillis, occurred_end: m.occurred_end.epochMillis,
         mentioned_at: m.mentioned_at.epochMillis, document_id: m.document_id,
         chunk_id: m.chunk_id, tags: coalesce(m.tags, []), metadata_json: m.metadata_json,
         state: m.state}] AS memories
