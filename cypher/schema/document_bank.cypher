// All Document nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX document_bank IF NOT EXISTS FOR (n:Document) ON (n.bank_id)
