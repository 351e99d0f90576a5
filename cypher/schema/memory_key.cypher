// Uniqueness of Memory ids within a bank; settles creation races (MERGE + constraint).
// params: none
// mode: schema
CREATE CONSTRAINT memory_key IF NOT EXISTS FOR (n:Memory) REQUIRE (n.bank_id, n.id) IS UNIQUE
