// Uniqueness of MentalModel ids within a bank.
// params: none
// mode: schema
CREATE CONSTRAINT mental_model_key IF NOT EXISTS FOR (n:MentalModel) REQUIRE (n.bank_id, n.id) IS UNIQUE
