// Retract observations (no valid source left, or a consolidation decision deleted them): they
// leave recall and the active graph but stay readable with their history and their sources.
// Their MENTIONS go (they carry no counts and are never restored), the vector store must follow
// (vector_pending until the consolidation worker or reconciliation writes the new state).
// retracted_at tells a retraction from a person's invalidation: the sources of an observation a
// person invalidated are not offered to consolidation again.
// params: $bank_id, $observation_ids, $reason, $at
// mode: write
UNWIND $observation_ids AS id
MATCH (o:Observation {bank_id: $bank_id, id: id})
WHERE o.state = 'valid'
SET o.state = 'invalidated', o.state_reason = $reason, o.state_changed_at = $at,
    o.updated_at = $at, o.retracted_at = $at, o.vector_pending = true
WITH o
CALL (o) {
  MATCH (o)-[r:MENTIONS]->(:Entity)
  DELETE r
  RETURN count(*) AS mentions
}
RETURN o.id AS id
