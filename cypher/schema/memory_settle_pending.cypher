// Facts written but not yet covered by their bank's settle (start-up settles them).
// params: none
// mode: schema
CREATE INDEX memory_settle_pending IF NOT EXISTS FOR (m:Memory) ON (m.settle_pending)
