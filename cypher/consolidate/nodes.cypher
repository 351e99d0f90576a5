// Facts and observations as consolidation reads them, by id (valid ones only): text, tags,
// times, entities; for a fact, the valid observations it supports and whether it supports one a
// person invalidated (held); for an observation, its valid sources (ids) and the $recent most
// recently mentioned of them (the ones a batch reads: an observation may be backed by thousands).
// One row holding a list, times as epoch milliseconds: the Python driver spends ~50 µs per
// record and ~45 µs per Neo4j DateTime, and a batch reads hundreds of neighbours.
// params: $bank_id, $ids, $recent
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
WHERE m.state = 'valid'
RETURN collect({
  id: m.id, text: m.text, fact_type: m.fact_type, tags: coalesce(m.tags, []),
  occurred_start: m.occurred_start.epochMillis, occurred_end: m.occurred_end.epochMillis,
  mentioned_at: m.mentioned_at.epochMillis, edited_at: m.edited_at.epochMillis,
  updated_at: m.updated_at.epochMillis,
  entities: [(m)-[r:MENTIONS]->(e:Entity) | {id: e.id, name: e.canonical_name, mention: r.mention}],
  observation_ids: [(o:Observation)-[:DERIVED_FROM]->(m) WHERE o.state = 'valid' | o.id],
  held: EXISTS { MATCH (o:Observation)-[:DERIVED_FROM]->(m)
                 WHERE o.state = 'invalidated' AND o.retracted_at IS NULL },
  source_ids: CASE WHEN m:Observation
                   THEN [(m)-[:DERIVED_FROM]->(s:Memory) WHERE s.state = 'valid' | s.id]
                   ELSE [] END,
  recent_source_ids: CASE WHEN m:Observation
                          THEN COLLECT { MATCH (m)-[:DERIVED_FROM]->(s:Memory)
                                         WHERE s.state = 'valid'
                                         RETURN s.id ORDER BY s.mentioned_at DESC, s.id DESC
                                         LIMIT $recent }
                          ELSE [] END
}) AS nodes
