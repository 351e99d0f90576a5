// All Webhook nodes of a bank (composite (bank_id, id) constraints do not serve bank-only lookups).
// params: none
// mode: schema
CREATE INDEX webhook_bank IF NOT EXISTS FOR (n:Webhook) ON (n.bank_id)
