// Facts whose consolidation failed: failed with the reason and the time, retried at retry_at
// (the caller's backoff); never dropped.
// params: $bank_id, $failures [{id, error, retry_at}], $at
// mode: write
UNWIND $failures AS failure
MATCH (m:Memory {bank_id: $bank_id, id: failure.id})
WHERE NOT m:Observation
SET m.consolidation_state = 'failed', m.consolidation_failed_at = $at,
    m.consolidation_error = failure.error,
    m.consolidation_attempts = coalesce(m.consolidation_attempts, 0) + 1,
    m.consolidation_retry_at = datetime(failure.retry_at)
RETURN count(m) AS failed
