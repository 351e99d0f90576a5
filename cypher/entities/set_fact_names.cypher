// The keyword field of facts (canonical names and surface texts of what they mention).
// params: $bank_id, $facts [{id, entity_names}]
// mode: write
UNWIND $facts AS f
MATCH (m:Memory {bank_id: $bank_id, id: f.id})
SET m.entity_names = f.entity_names
