// Facts whose vector write has not been confirmed (reconciliation).
// params: none
// mode: schema
CREATE INDEX memory_pending IF NOT EXISTS FOR (m:Memory) ON (m.bank_id, m.vector_pending)
