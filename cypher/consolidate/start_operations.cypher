// The worker took up a bank: its queued consolidation runs are running.
// params: $bank_id
// mode: write
MATCH (o:Operation {bank_id: $bank_id, type: 'consolidation', status: 'pending'})
SET o.status = 'running', o.started_at = datetime(), o.attempts = o.attempts + 1
RETURN count(o) AS started
