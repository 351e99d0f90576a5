// Banks with facts due for consolidation (pending, or failed and past their retry time), whose
// observations are enabled and whose lease is free, expired or already $owner's. One seek of
// the (bank_id, consolidation_state, created_at) index per bank and state, never a scan of the
// bank (hinted: left alone, the planner reads the bank's facts through its (bank_id) index,
// every poll, for a bank with nothing due).
// params: $owner, $now
// mode: read
MATCH (b:Bank)
WHERE coalesce(b.enable_observations, true)
  AND NOT EXISTS {
    MATCH (l:ConsolidationLease {bank_id: b.id})
    WHERE l.owner <> $owner AND l.expires_at > $now
  }
  AND (EXISTS {
    MATCH (m:Memory {bank_id: b.id, consolidation_state: 'pending'})
    USING INDEX m:Memory(bank_id, consolidation_state, created_at)
    WHERE m.created_at IS NOT NULL AND m.state = 'valid'
      AND coalesce(m.vector_pending, false) = false
  } OR EXISTS {
    MATCH (m:Memory {bank_id: b.id, consolidation_state: 'failed'})
    USING INDEX m:Memory(bank_id, consolidation_state, created_at)
    WHERE m.created_at IS NOT NULL AND m.state = 'valid' AND m.consolidation_retry_at <= $now
  } OR EXISTS {
    MATCH (o:Operation {bank_id: b.id, type: 'consolidation'})
    WHERE o.status IN ['pending', 'running']
  })
RETURN b.id AS bank_id
ORDER BY b.id
