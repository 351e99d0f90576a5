// All Operation nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX operation_bank IF NOT EXISTS FOR (n:Operation) ON (n.bank_id)
