// Facts whose vector write has not been confirmed (reconciliation).
// params: none
// mode: schema
CREATE INDEX memory_pending IF NOT EXISTS FOR (m:Memory) ON (m.vector_pending)
