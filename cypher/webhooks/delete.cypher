// Remove a subscription and its delivery records.
// params: $bank_id, $id
// mode: write
MATCH (w:Webhook {bank_id: $bank_id, id: $id})
OPTIONAL MATCH (d:WebhookDelivery {bank_id: $bank_id, webhook_id: $id})
WITH w, collect(d) AS deliveries
FOREACH (d IN deliveries | DETACH DELETE d)
DETACH DELETE w
RETURN 1 + size(deliveries) AS deleted
