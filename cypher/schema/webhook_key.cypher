// Uniqueness of Webhook ids within a bank.
// params: none
// mode: schema
CREATE CONSTRAINT webhook_key IF NOT EXISTS FOR (n:Webhook) REQUIRE (n.bank_id, n.id) IS UNIQUE
