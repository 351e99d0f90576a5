// Merged-away shells by id within a bank: a 404 for a merged-away id names where it went, and
// a revert finds the shell again (the bank-only index would scan every shell of the bank).
// params: none
// mode: schema
CREATE INDEX merged_entity_key IF NOT EXISTS FOR (n:MergedEntity) ON (n.bank_id, n.id)
