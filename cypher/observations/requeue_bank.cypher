// After a bank's observations were cleared, its valid facts wait for consolidation again (the
// bank rebuilds them while enable_observations holds). Observations and invalidated facts are
// left alone; facts already waiting keep their place.
// params: $bank_id
// mode: write
MATCH (m:Memory {bank_id: $bank_id})
WHERE m.state = 'valid' AND NOT m:Observation AND coalesce(m.consolidation_state, '') <> 'pending'
SET m.consolidation_state = 'pending', m.consolidation_attempts = 0,
    m.consolidation_retry_at = null, m.consolidation_error = null
RETURN count(m) AS requeued
