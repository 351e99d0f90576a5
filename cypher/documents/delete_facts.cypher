// Delete facts with every relationship touching them (mentions, links, archived links,
// provenance) and their revision history. Counts must have been released before.
// params: $bank_id, $memory_ids
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
OPTIONAL MATCH (m)-[:HAS_REVISION]->(r:MemoryRevision)
DETACH DELETE r
WITH DISTINCT m
DETACH DELETE m
RETURN count(*) AS deleted
