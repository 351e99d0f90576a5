// Deliveries of one subscription, newest first, one page (one more than asked: is there more).
// params: $bank_id, $webhook_id, $limit, $offset
// mode: read
MATCH (x:WebhookDelivery {bank_id: $bank_id, webhook_id: $webhook_id})
WITH x ORDER BY x.created_at DESC, x.id
SKIP $offset LIMIT $limit + 1
RETURN x {.*, payload: null} AS delivery
