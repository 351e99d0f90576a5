// One Bank node per bank id.
// params: none
// mode: schema
CREATE CONSTRAINT bank_id IF NOT EXISTS FOR (b:Bank) REQUIRE b.id IS UNIQUE
