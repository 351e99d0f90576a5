// Operations a previous process left pending or running (resumed or failed at start);
// consolidation operations belong to the consolidation worker.
// params: none
// mode: read
MATCH (o:Operation)
WHERE o.status IN ['pending', 'running'] AND coalesce(o.type, 'retain') <> 'consolidation'
RETURN o.bank_id AS bank_id, o.id AS id, o.attempts AS attempts, coalesce(o.type, 'retain') AS type
ORDER BY o.created_at
