// Uniqueness of Document ids within a bank; settles creation races (MERGE + constraint).
// params: none
// mode: schema
CREATE CONSTRAINT document_key IF NOT EXISTS FOR (n:Document) REQUIRE (n.bank_id, n.id) IS UNIQUE
