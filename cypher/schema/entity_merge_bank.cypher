// All EntityMerge nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX entity_merge_bank IF NOT EXISTS FOR (n:EntityMerge) ON (n.bank_id)
