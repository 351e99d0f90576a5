// Create or rewrite observations: text, tags, time range, mention time, and a DERIVED_FROM edge
// to each source (sources only grow: existing edges stay). A source that is no longer valid is
// not linked. vector_pending always (the payload's time range may have widened; the worker
// writes the vector, reusing the stored one when the text is unchanged); proof_count and
// MENTIONS follow in observations/refresh.
// params: $bank_id, $bank_key, $at, $observations [{id, text, tags, tag_tokens,
//   occurred_start, occurred_end, mentioned_at, source_ids}]
// Times arrive as ISO 8601 text (or null) and become datetimes here.
// mode: write
UNWIND $observations AS obs
MERGE (o:Memory {bank_id: $bank_id, id: obs.id})
ON CREATE SET o:Observation, o.fact_type = 'observation', o.state = 'valid',
              o.created_at = $at, o.bank_key = $bank_key, o.proof_count = 0
SET o.text = obs.text, o.tags = obs.tags, o.tag_tokens = obs.tag_tokens,
    o.occurred_start = CASE WHEN obs.occurred_start IS NULL THEN null
                            ELSE datetime(obs.occurred_start) END,
    o.occurred_end = CASE WHEN obs.occurred_end IS NULL THEN null
                          ELSE datetime(obs.occurred_end) END,
    o.mentioned_at = CASE WHEN obs.mentioned_at IS NULL THEN null
                          ELSE datetime(obs.mentioned_at) END,
    o.updated_at = $at,
    o.vector_pending = true
WITH o, obs
CALL (o, obs) {
  UNWIND obs.source_ids AS source_id
  MATCH (s:Memory {bank_id: $bank_id, id: source_id})
  WHERE s.state = 'valid' AND NOT s:Observation
  MERGE (o)-[:DERIVED_FROM]->(s)
  RETURN count(s) AS linked
}
RETURN o.id AS id, linked
