// Event-time range scans for the temporal channel and temporal links.
// params: none
// mode: schema
CREATE INDEX memory_occurred IF NOT EXISTS FOR (m:Memory) ON (m.bank_id, m.occurred_start)
