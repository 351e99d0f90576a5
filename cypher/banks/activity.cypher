// How a bank's memory grew: memories per day they were retained, from $since on. The range
// predicate lets the (bank_id, created_at) index serve both the rows and their values.
// params: $bank_id, $since
// mode: read
MATCH (m:Memory {bank_id: $bank_id})
WHERE m.created_at >= datetime($since)
RETURN date(m.created_at) AS day, 'memories' AS type, count(*) AS count
ORDER BY day
