// Record an async operation with its request, so a restart can resume it.
// params: $bank_id, $id, $type, $items_count, $request_json
// mode: write
MATCH (b:Bank {id: $bank_id})
CREATE (o:Operation {bank_id: $bank_id, id: $id})
SET o.type = $type, o.status = 'pending', o.created_at = datetime(),
    o.items_count = $items_count, o.items_done = 0, o.memories_count = 0, o.attempts = 0,
    o.request_json = $request_json, o.errors_json = '[]', o.warnings = []
RETURN o.id AS id
