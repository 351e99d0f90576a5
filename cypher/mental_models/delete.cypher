// Delete a mental model and its versions (its BASED_ON links go with it; memories stay).
// params: $bank_id, $id
// mode: write
MATCH (mm:MentalModel {bank_id: $bank_id, id: $id})
OPTIONAL MATCH (mm)-[:VERSION]->(v:MentalModelVersion {bank_id: $bank_id})
WITH mm, collect(v) AS versions
FOREACH (v IN versions | DETACH DELETE v)
DETACH DELETE mm
RETURN size(versions) AS versions
