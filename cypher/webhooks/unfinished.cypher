// Deliveries still to be sent, in every bank (resumed when the service starts), with what
// sending them needs.
// params: none
// mode: read
MATCH (x:WebhookDelivery {status: 'pending'})
MATCH (w:Webhook {bank_id: x.bank_id, id: x.webhook_id})
RETURN x {.*} AS delivery, w {.*} AS webhook
ORDER BY x.created_at
