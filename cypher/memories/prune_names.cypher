// Names are claims with provenance: facts that stop mentioning an entity (deleted, or edited)
// are removed from its KNOWN_AS claims. A claim left with no fact behind it goes, unless it is
// the entity's own canonical name; a Name node nobody is known as any more goes too.
// params: $bank_id, $memory_ids, $entity_ids (the entities those facts mentioned)
// mode: write
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {bank_id: $bank_id, id: entity_id})-[k:KNOWN_AS]->(n:Name)
WHERE any(id IN coalesce(k.memory_ids, []) WHERE id IN $memory_ids)
SET k.memory_ids = [id IN k.memory_ids WHERE NOT id IN $memory_ids]
SET k.first_memory_id = CASE WHEN k.first_memory_id IN $memory_ids
                             THEN head(k.memory_ids) ELSE k.first_memory_id END
WITH e, k, n
WHERE size(k.memory_ids) = 0 AND n.key <> e.name_key
DELETE k
WITH DISTINCT n
WHERE NOT EXISTS { (n)<-[:KNOWN_AS]-() }
DELETE n
RETURN count(*) AS names_deleted
