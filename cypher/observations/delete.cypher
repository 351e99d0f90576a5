// Delete observations outright, with their revisions and every relationship (their sources stay).
// params: $bank_id, $observation_ids
// mode: write
UNWIND $observation_ids AS id
MATCH (o:Observation {bank_id: $bank_id, id: id})
OPTIONAL MATCH (o)-[:HAS_REVISION]->(r:MemoryRevision)
DETACH DELETE r
WITH DISTINCT o
DETACH DELETE o
RETURN count(*) AS deleted
