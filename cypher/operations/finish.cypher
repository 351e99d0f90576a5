// Close an operation: completed or failed, with its final counts and errors.
// params: $bank_id, $id, $status, $items_done, $memories_count, $errors_json, $warnings
// mode: write
MATCH (o:Operation {bank_id: $bank_id, id: $id})
SET o.status = $status, o.finished_at = datetime(), o.items_done = $items_done,
    o.memories_count = $memories_count, o.errors_json = $errors_json, o.warnings = $warnings,
    o.request_json = null
