// Facts whose observations changed under them (a fellow source left, an observation was
// cleared) or that changed themselves (edited, restored) wait for consolidation again.
// Observations and invalidated facts are left alone.
// params: $bank_id, $memory_ids
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
WHERE m.state = 'valid' AND NOT m:Observation
SET m.consolidation_state = 'pending', m.consolidation_attempts = 0,
    m.consolidation_retry_at = null, m.consolidation_error = null
RETURN count(m) AS requeued
