// Uniqueness of Chunk ids within a bank; settles creation races (MERGE + constraint).
// params: none
// mode: schema
CREATE CONSTRAINT chunk_key IF NOT EXISTS FOR (n:Chunk) REQUIRE (n.bank_id, n.id) IS UNIQUE
