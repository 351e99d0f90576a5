// Uniqueness of MentalModelVersion ids within a bank.
// params: none
// mode: schema
CREATE CONSTRAINT mental_model_version_key IF NOT EXISTS FOR (n:MentalModelVersion) REQUIRE (n.bank_id, n.id) IS UNIQUE
