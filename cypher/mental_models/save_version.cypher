// Write a new version of a mental model's page: the page and its status on the model, a
// MentalModelVersion node, and BASED_ON links to exactly the memories of this version (valid
// memories of the bank only). No row when the model changed since the refresh read it
// ($base_version), so that two refreshes never write over each other.
// params: $bank_id, $id, $base_version, $props, $version_id, $version_props, $memory_ids
// mode: write
MATCH (mm:MentalModel {bank_id: $bank_id, id: $id})
WHERE mm.version = $base_version
SET mm += $props, mm.version = mm.version + 1, mm.updated_at = datetime()
CREATE (v:MentalModelVersion {bank_id: $bank_id, id: $version_id})
SET v += $version_props, v.version = mm.version, v.mental_model_id = mm.id,
    v.created_at = datetime()
CREATE (mm)-[:VERSION]->(v)
WITH mm
CALL (mm) {
  MATCH (mm)-[old:BASED_ON]->()
  DELETE old
}
CALL (mm) {
  UNWIND range(0, size($memory_ids) - 1) AS rank
  MATCH (m:Memory {bank_id: $bank_id, id: $memory_ids[rank]})
  WHERE m.state = 'valid'
  CREATE (mm)-[:BASED_ON {rank: rank}]->(m)
  RETURN count(*) AS linked
}
RETURN mm.version AS version, linked
