// A bank's security events, newest first, one page, with the total.
// params: $bank_id, $offset, $limit
// mode: read
MATCH (s:SecurityEvent {bank_id: $bank_id})
WITH s ORDER BY s.at DESC, s.id
WITH collect(s {.*, bank_id: null}) AS events
RETURN size(events) AS total, events[$offset..($offset + $limit)] AS items
