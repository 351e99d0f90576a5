// The vector store confirmed these facts' vectors: they become visible to recall. Run after
// retain/lock_bank in the same transaction (app/retain/publish.py), like every other writer
// of the bank, so it never deadlocks with a retain that links new facts to these ones. A fact
// whose bank node is gone is still cleared.
// params: $bank_id, $memory_ids
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
SET m.vector_pending = false
RETURN count(m) AS cleared
