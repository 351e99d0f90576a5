// The next facts of a bank to consolidate, oldest first: pending ones (with a confirmed vector)
// and failed ones past their retry time. Each branch reads the (bank_id, consolidation_state,
// created_at) index in order and stops at $limit (hinted: left alone, the planner seeks the
// (bank_id) index and reads the whole bank).
// params: $bank_id, $now, $limit
// mode: read
CALL () {
  MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'pending'})
  USING INDEX m:Memory(bank_id, consolidation_state, created_at)
  WHERE m.created_at IS NOT NULL AND m.state = 'valid'
    AND coalesce(m.vector_pending, false) = false
  RETURN m ORDER BY m.bank_id, m.consolidation_state, m.created_at LIMIT $limit
  UNION
  MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'failed'})
  USING INDEX m:Memory(bank_id, consolidation_state, created_at)
  WHERE m.created_at IS NOT NULL AND m.state = 'valid' AND m.consolidation_retry_at <= $now
    AND coalesce(m.vector_pending, false) = false
  RETURN m ORDER BY m.bank_id, m.consolidation_state, m.created_at LIMIT $limit
}
WITH m ORDER BY m.created_at, m.id LIMIT $limit
RETURN m.id AS id, coalesce(m.consolidation_attempts, 0) AS attempts
