// Unmark facts a settle has covered (set by resolve/annotate_mentions).
// params: $bank_id, $memory_ids
// mode: write
UNWIND $memory_ids AS memory_id
MATCH (m:Memory {bank_id: $bank_id, id: memory_id})
WHERE m.settle_pending IS NOT NULL
REMOVE m.settle_pending
