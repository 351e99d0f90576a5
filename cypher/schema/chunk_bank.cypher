// All Chunk nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX chunk_bank IF NOT EXISTS FOR (n:Chunk) ON (n.bank_id)
