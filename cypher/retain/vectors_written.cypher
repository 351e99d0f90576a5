// The vector store confirmed these facts' vectors: they become visible to recall
// (app/retain/publish.py says in which transactions this runs). A fact whose bank node is
// gone is still cleared.
// params: $bank_id, $memory_ids
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
SET m.vector_pending = false
RETURN count(m) AS cleared
