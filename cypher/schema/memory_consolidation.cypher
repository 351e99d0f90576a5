// A bank's facts waiting for consolidation, oldest first: (bank_id, consolidation_state) by
// equality, then created_at in index order, so the worker reads a batch without sorting the
// whole backlog.
// params: none
// mode: schema
CREATE INDEX memory_consolidation IF NOT EXISTS
FOR (m:Memory) ON (m.bank_id, m.consolidation_state, m.created_at)
