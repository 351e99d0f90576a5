// Uniqueness of Entity ids within a bank; settles creation races (MERGE + constraint).
// params: none
// mode: schema
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE (n.bank_id, n.id) IS UNIQUE
