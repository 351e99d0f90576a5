// All MemoryRevision nodes of a bank (bank deletion; composite constraints do not serve it).
// params: none
// mode: schema
CREATE INDEX memory_revision_bank IF NOT EXISTS FOR (n:MemoryRevision) ON (n.bank_id)
