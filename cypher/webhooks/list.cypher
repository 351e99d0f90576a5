// A bank's subscriptions, oldest first, one page, with their total.
// params: $bank_id, $limit, $offset
// mode: read
MATCH (w:Webhook {bank_id: $bank_id})
WITH w ORDER BY w.created_at, w.id
WITH collect(w {.*}) AS hooks
RETURN size(hooks) AS total, hooks[$offset..$offset + $limit] AS items
