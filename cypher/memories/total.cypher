// How many facts a bank holds, counted on the (bank_id) index without reading a fact.
// params: $bank_id
// mode: read
RETURN COUNT { MATCH (m:Memory {bank_id: $bank_id}) } AS total
