// Name claims with provenance on one entity (a split's new entity): one Name node per key per
// bank (created when missing), one new KNOWN_AS edge per claim.
// params: $bank_id, $bank_key, $entity_id,
//   $claims [{key, text, source, stated, surfaces, memory_ids, first_memory_id, at}]
// mode: write
MATCH (e:Entity {bank_id: $bank_id, id: $entity_id})
UNWIND $claims AS c
MERGE (n:Name {bank_id: $bank_id, key: c.key})
ON CREATE SET n.text = c.text, n.bank_key = $bank_key
CREATE (e)-[k:KNOWN_AS]->(n)
SET k.source = c.source, k.stated = c.stated, k.surfaces = c.surfaces,
    k.memory_ids = c.memory_ids, k.first_memory_id = c.first_memory_id, k.at = c.at
RETURN count(k) AS claims
