// A mental model's history: every version, newest first. No row when the model is not in
// the bank.
// params: $bank_id, $id
// mode: read
MATCH (mm:MentalModel {bank_id: $bank_id, id: $id})
OPTIONAL MATCH (mm)-[:VERSION]->(v:MentalModelVersion {bank_id: $bank_id})
WITH mm, v ORDER BY v.version DESC
RETURN mm.id AS id, collect(v {.*}) AS versions
