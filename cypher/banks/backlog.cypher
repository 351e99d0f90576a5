// What waits on a bank, counted from indexes and bounded: facts waiting for consolidation and
// those that failed it (retried later; both on the (bank_id, consolidation_state, created_at)
// index, hinted: left alone, the planner seeks the (bank_id) index and filters the whole bank),
// its observations (on the Observation label's (bank_id) index, so facts are never read), and
// its unfinished and failed operations. Each count reads at most $cap + 1 entries, so a count
// past $cap comes back as $cap + 1 ("more than $cap"), whatever the bank's size.
// params: $bank_id, $cap
// mode: read
CALL () {
  MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'pending'})
  USING INDEX m:Memory(bank_id, consolidation_state, created_at)
  WHERE m.created_at IS NOT NULL
  WITH m LIMIT $cap + 1
  RETURN count(m) AS pending
}
CALL () {
  MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'failed'})
  USING INDEX m:Memory(bank_id, consolidation_state, created_at)
  WHERE m.created_at IS NOT NULL
  WITH m LIMIT $cap + 1
  RETURN count(m) AS failed
}
CALL () {
  MATCH (o:Observation {bank_id: $bank_id})
  WITH o LIMIT $cap + 1
  RETURN count(o) AS observations
}
CALL () {
  MATCH (o:Operation {bank_id: $bank_id})
  WHERE o.status IN ['pending', 'processing']
  WITH o LIMIT $cap + 1
  RETURN count(o) AS operations_pending
}
CALL () {
  MATCH (o:Operation {bank_id: $bank_id, status: 'failed'})
  WITH o LIMIT $cap + 1
  RETURN count(o) AS operations_failed
}
RETURN pending, failed, observations, operations_pending, operations_failed, $cap AS cap
