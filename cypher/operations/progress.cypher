// Record progress of a running operation.
// params: $bank_id, $id, $items_done, $memories_count, $errors_json, $warnings
// mode: write
MATCH (o:Operation {bank_id: $bank_id, id: $id})
SET o.items_done = $items_done, o.memories_count = $memories_count,
    o.errors_json = $errors_json, o.warnings = $warnings
