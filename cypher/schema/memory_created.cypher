// Newest-first listing of a bank's facts.
// params: none
// mode: schema
CREATE INDEX memory_created IF NOT EXISTS FOR (m:Memory) ON (m.bank_id, m.created_at)
