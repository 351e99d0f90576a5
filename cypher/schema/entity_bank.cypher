// All Entity nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX entity_bank IF NOT EXISTS FOR (n:Entity) ON (n.bank_id)
