// Mark an operation running (one more attempt) and return its request.
// params: $bank_id, $id
// mode: write
MATCH (o:Operation {bank_id: $bank_id, id: $id})
SET o.status = 'running', o.started_at = datetime(), o.attempts = o.attempts + 1
RETURN o.request_json AS request_json, o.attempts AS attempts
