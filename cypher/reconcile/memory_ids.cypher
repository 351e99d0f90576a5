// Every fact id of a bank (full reconciliation against the vector store).
// params: $bank_id
// mode: read
MATCH (m:Memory {bank_id: $bank_id})
RETURN m.id AS id, m.vector_pending AS pending
