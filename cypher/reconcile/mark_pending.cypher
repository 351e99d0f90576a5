// Facts whose vector is missing from the vector store: re-embed them on the next pass.
// params: $bank_id, $memory_ids
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
SET m.vector_pending = true
