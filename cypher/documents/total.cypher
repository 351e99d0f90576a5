// How many documents a bank holds, counted on the (bank_id) index without reading one.
// params: $bank_id
// mode: read
RETURN COUNT { MATCH (d:Document {bank_id: $bank_id}) } AS total
