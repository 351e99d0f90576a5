// How a bank's memory spreads over time: memories per day their event began, from $since on
// (facts without an event time are left out), served by the (bank_id, occurred_start) index.
// params: $bank_id, $since
// mode: read
MATCH (m:Memory {bank_id: $bank_id})
WHERE m.occurred_start >= datetime($since)
RETURN date(m.occurred_start) AS day, 'memories' AS type, count(*) AS count
ORDER BY day
