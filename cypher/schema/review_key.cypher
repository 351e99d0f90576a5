// Uniqueness of Review ids within a bank; settles creation races (MERGE + constraint).
// params: none
// mode: schema
CREATE CONSTRAINT review_key IF NOT EXISTS FOR (n:Review) REQUIRE (n.bank_id, n.id) IS UNIQUE
