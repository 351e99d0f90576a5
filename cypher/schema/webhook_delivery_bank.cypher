// All WebhookDelivery nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX webhook_delivery_bank IF NOT EXISTS FOR (n:WebhookDelivery) ON (n.bank_id)
