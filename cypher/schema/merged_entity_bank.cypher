// Merged-away entity shells of a bank (kept so a merge can be reverted).
// params: none
// mode: schema
CREATE INDEX merged_entity_bank IF NOT EXISTS FOR (n:MergedEntity) ON (n.bank_id)
