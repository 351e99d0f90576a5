// Rewrite which entities an active fact mentions (counts are adjusted separately, by
// release_* before and claim_* after) and the entity names its keyword field carries.
// params: $bank_id, $memory_id, $mentions [{entity_id, mention}], $entity_names
// mode: write
MATCH (m:Memory {bank_id: $bank_id, id: $memory_id})
SET m.entity_names = $entity_names
WITH m
CALL (m) {
  MATCH (m)-[r:MENTIONS]->(:Entity)
  DELETE r
  RETURN count(*) AS dropped
}
UNWIND $mentions AS mention
MATCH (e:Entity {bank_id: $bank_id, id: mention.entity_id})
CREATE (m)-[:MENTIONS {mention: mention.mention}]->(e)
RETURN count(e) AS mentions
