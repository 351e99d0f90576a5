// One Name node per normalised name per bank: the index behind exact alias lookup.
// params: none
// mode: schema
CREATE CONSTRAINT name_key IF NOT EXISTS FOR (n:Name) REQUIRE (n.bank_id, n.key) IS UNIQUE
