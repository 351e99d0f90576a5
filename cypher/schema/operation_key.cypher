// Uniqueness of Operation ids within a bank; settles creation races (MERGE + constraint).
// params: none
// mode: schema
CREATE CONSTRAINT operation_key IF NOT EXISTS FOR (n:Operation) REQUIRE (n.bank_id, n.id) IS UNIQUE
