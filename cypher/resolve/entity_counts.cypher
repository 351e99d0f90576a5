// What tells an anchor from an entity a settle may replay (app/resolve/memory_bank.py,
// anchored_by): mention count and label flag, without the names and neighbours a load reads.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (e:Entity {bank_id: $bank_id, id: id})
RETURN e.id AS id, coalesce(e.mention_count, 0) AS mentions, coalesce(e.is_label, false) AS is_label
