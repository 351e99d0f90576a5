// Uniqueness of WebhookDelivery ids within a bank.
// params: none
// mode: schema
CREATE CONSTRAINT webhook_delivery_key IF NOT EXISTS FOR (n:WebhookDelivery) REQUIRE (n.bank_id, n.id) IS UNIQUE
