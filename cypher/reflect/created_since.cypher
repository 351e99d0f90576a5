// Which of the given memories arrived (were written or last edited) after $since: the evidence
// a delta refresh of a mental model has not seen yet.
// params: $bank_id, $ids, $since
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
WHERE m.created_at > $since OR coalesce(m.edited_at, m.created_at) > $since
RETURN collect(m.id) AS ids
