// How many memories, entities and documents each of the given banks holds.
// params: $bank_ids
// mode: read
UNWIND $bank_ids AS bank_id
RETURN bank_id,
       COUNT { MATCH (m:Memory {bank_id: bank_id}) } AS memories,
       COUNT { MATCH (e:Entity {bank_id: bank_id}) } AS entities,
       COUNT { MATCH (d:Document {bank_id: bank_id}) } AS documents
