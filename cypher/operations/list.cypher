// A bank's operations, newest first, one page.
// params: $bank_id, $limit, $offset
// mode: read
MATCH (o:Operation {bank_id: $bank_id})
WITH o ORDER BY o.created_at DESC SKIP $offset LIMIT $limit
RETURN o {.*, request_json: null} AS operation
