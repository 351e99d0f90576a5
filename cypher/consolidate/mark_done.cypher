// Facts consolidated: done, with the time (a fact requeued meanwhile is pending again and is
// not touched: its text or state changed, which the batch's snapshot check refused).
// params: $bank_id, $memory_ids, $at
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
WHERE NOT m:Observation
SET m.consolidation_state = 'done', m.consolidated_at = $at, m.consolidation_error = null,
    m.consolidation_retry_at = null, m.consolidation_attempts = 0
RETURN count(m) AS done
