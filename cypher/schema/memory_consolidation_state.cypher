// Which banks have facts waiting for consolidation (the worker's poll, across banks).
// params: none
// mode: schema
CREATE INDEX memory_consolidation_state IF NOT EXISTS FOR (m:Memory) ON (m.consolidation_state)
