// Everything a recall answer shows about the fused facts (an observation's valid sources too),
// plus the signals boosts read:
// one round trip for the whole candidate list. A fact retired since a channel saw it is left out.
// Times as epoch milliseconds and one row with a list: the Python driver spends ~50 µs per record
// and ~45 µs per Neo4j DateTime (100 facts: 31 ms as rows of DateTimes, 9 ms like this).
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
WHERE m.state = 'valid'
RETURN collect({
  id: m.id, text: m.text, type: m.fact_type, context: m.context,
  occurred_start: m.occurred_start.epochMillis, occurred_end: m.occurred_end.epochMillis,
  mentioned_at: m.mentioned_at.epochMillis, document_id: m.document_id, chunk_id: m.chunk_id,
  metadata_json: m.metadata_json, tags: coalesce(m.tags, []),
  proof_count: coalesce(m.proof_count, 1),
  source_ids: CASE WHEN m:Observation
                   THEN [(m)-[:DERIVED_FROM]->(s:Memory) WHERE s.state = 'valid' | s.id] END,
  entities: [(m)-[r:MENTIONS]->(e:Entity) | {id: e.id, name: e.canonical_name, mention: r.mention,
                                             type: coalesce(e.type, ''),
                                             degree: coalesce(e.mention_count, 0)}]
}) AS facts
