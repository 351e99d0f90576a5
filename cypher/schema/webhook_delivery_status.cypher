// Deliveries still to be sent (the restart scan looks them up by status).
// params: none
// mode: schema
CREATE INDEX webhook_delivery_status IF NOT EXISTS FOR (n:WebhookDelivery) ON (n.status)
