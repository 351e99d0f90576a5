// All Memory nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX memory_bank IF NOT EXISTS FOR (n:Memory) ON (n.bank_id)
