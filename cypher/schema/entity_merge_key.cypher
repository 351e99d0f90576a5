// Uniqueness of EntityMerge ids within a bank; settles creation races (MERGE + constraint).
// params: none
// mode: schema
CREATE CONSTRAINT entity_merge_key IF NOT EXISTS FOR (n:EntityMerge) REQUIRE (n.bank_id, n.id) IS UNIQUE
