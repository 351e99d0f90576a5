// All Name nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX name_bank IF NOT EXISTS FOR (n:Name) ON (n.bank_id)
