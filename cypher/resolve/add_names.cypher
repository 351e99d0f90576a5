// Names are claims: each surface name (or stated alias) an entity was called, with the fact
// it came from. One Name node per normalised key per bank; one KNOWN_AS per entity and name
// (a merge adds a second, tagged with the merge, so that a revert can take it back).
// params: $bank_id, $bank_key, $names [{entity_id, key, text, stated, source, memory_id, at}]
// mode: write
UNWIND $names AS nm
MATCH (e:Entity {bank_id: $bank_id, id: nm.entity_id})
MERGE (n:Name {bank_id: $bank_id, key: nm.key})
ON CREATE SET n.text = nm.text, n.bank_key = $bank_key
WITH e, n, nm
OPTIONAL MATCH (e)-[existing:KNOWN_AS]->(n)
WHERE existing.merge_id IS NULL
WITH e, n, nm, head(collect(existing)) AS existing
CALL (e, n, nm, existing) {
  WITH e, n, nm WHERE existing IS NULL
  CREATE (e)-[k:KNOWN_AS]->(n)
  SET k.source = nm.source, k.first_memory_id = nm.memory_id, k.at = nm.at,
      k.surfaces = [nm.text], k.stated = nm.stated,
      k.memory_ids = CASE WHEN nm.memory_id IS NULL THEN [] ELSE [nm.memory_id] END
  UNION
  WITH existing, nm WHERE existing IS NOT NULL
  SET existing.stated = existing.stated OR nm.stated,
      existing.surfaces = CASE WHEN nm.text IN existing.surfaces THEN existing.surfaces
                               ELSE existing.surfaces + nm.text END,
      existing.memory_ids = CASE WHEN nm.memory_id IS NULL OR nm.memory_id IN existing.memory_ids
                                 THEN existing.memory_ids ELSE existing.memory_ids + nm.memory_id END
}
