// Operations a previous process left pending or running (resumed or failed at start).
// params: none
// mode: read
MATCH (o:Operation)
WHERE o.status IN ['pending', 'running']
RETURN o.bank_id AS bank_id, o.id AS id, o.attempts AS attempts
ORDER BY o.created_at
