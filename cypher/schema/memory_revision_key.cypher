// Uniqueness of MemoryRevision ids within a bank.
// params: none
// mode: schema
CREATE CONSTRAINT memory_revision_key IF NOT EXISTS
FOR (n:MemoryRevision) REQUIRE (n.bank_id, n.id) IS UNIQUE
