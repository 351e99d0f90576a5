// All Review nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX review_bank IF NOT EXISTS FOR (n:Review) ON (n.bank_id)
