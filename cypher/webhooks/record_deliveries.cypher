// Record an event's deliveries, one per subscription, before the first attempt.
// params: $bank_id, $deliveries [{id, event_id, webhook_id, url, event_type, payload}]
// mode: write
UNWIND $deliveries AS d
CREATE (x:WebhookDelivery {bank_id: $bank_id, id: d.id})
SET x.event_id = d.event_id, x.webhook_id = d.webhook_id, x.url = d.url,
    x.event_type = d.event_type, x.payload = d.payload, x.status = 'pending', x.attempts = 0,
    x.created_at = datetime(), x.updated_at = datetime()
RETURN count(x) AS recorded
