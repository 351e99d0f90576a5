// Queue a consolidation run of a bank: the pending or running one if there is one (deduplicated),
// else a new operation. Failed facts become due now. Runs after the bank lock, so two requests
// never open two operations.
// params: $bank_id, $id, $now
// mode: write
MATCH (b:Bank {id: $bank_id})
OPTIONAL MATCH (existing:Operation {bank_id: $bank_id, type: 'consolidation'})
WHERE existing.status IN ['pending', 'running']
WITH b, existing ORDER BY existing.created_at
WITH b, head(collect(existing)) AS existing
CALL (b, existing) {
  WITH b, existing WHERE existing IS NULL
  CREATE (o:Operation {bank_id: $bank_id, id: $id})
  SET o.type = 'consolidation', o.status = 'pending', o.created_at = datetime(),
      o.items_count = 0, o.items_done = 0, o.memories_count = 0, o.attempts = 0,
      o.errors_json = '[]', o.warnings = []
  RETURN o.id AS created
  UNION
  WITH existing WHERE existing IS NOT NULL
  RETURN null AS created
}
CALL () {
  MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'failed'})
  SET m.consolidation_retry_at = $now
  RETURN count(m) AS retried
}
RETURN coalesce(created, existing.id) AS operation_id, created IS NULL AS deduplicated, retried
