// Latest-first reads of a hub entity's facts (entities/said_hub): the bank's facts in
// mentioned_at order, met by the entity within a few rows instead of sorting all of them.
// params: none
// mode: schema
CREATE INDEX memory_mentioned IF NOT EXISTS FOR (m:Memory) ON (m.bank_id, m.mentioned_at)
