// The vector store confirmed these facts' vectors: they become visible to recall. Takes the
// bank's write lock first, like every other writer of the bank, so it never deadlocks with a
// retain that links new facts to these ones (a fact whose bank node is gone is still cleared).
// params: $bank_id, $memory_ids
// mode: write
OPTIONAL MATCH (b:Bank {id: $bank_id})
SET b.write_seq = coalesce(b.write_seq, 0) + 1
WITH b
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
SET m.vector_pending = false
RETURN count(m) AS cleared
