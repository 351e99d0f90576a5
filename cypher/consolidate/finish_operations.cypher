// The worker found nothing more due in a bank: its queued and running consolidation runs are
// completed, with the facts consolidated while they ran and the failures ($errors_json: null
// keeps what is recorded).
// params: $bank_id, $done, $errors_json, $warnings
// mode: write
MATCH (o:Operation {bank_id: $bank_id, type: 'consolidation'})
WHERE o.status IN ['pending', 'running']
SET o.status = 'completed', o.finished_at = datetime(),
    o.started_at = coalesce(o.started_at, datetime()),
    o.items_done = o.items_done + $done, o.memories_count = o.memories_count + $done,
    o.warnings = (coalesce(o.warnings, []) + $warnings)[-100..],
    o.errors_json = coalesce($errors_json, o.errors_json)
RETURN count(o) AS finished, collect(o.id) AS operation_ids
