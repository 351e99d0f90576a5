// Names are claims: each surface name (or stated alias) an entity was called, with the facts
// it came from. One Name node per normalised key per bank; one KNOWN_AS per entity and name
// (a merge adds a second, tagged with the merge, so that a revert can take it back). One row
// per entity and name per batch: the claim's fact list is rewritten once, whatever the
// number of facts in the batch that used the name.
// params: $bank_id, $bank_key,
//   $names [{entity_id, key, texts, stated, source, first_memory_id, memory_ids, at}]
// Times arrive as ISO 8601 text (app/store/graph.py cypher_datetime) and become datetimes here.
// mode: write
UNWIND $names AS nm
MATCH (e:Entity {bank_id: $bank_id, id: nm.entity_id})
MERGE (n:Name {bank_id: $bank_id, key: nm.key})
ON CREATE SET n.text = head(nm.texts), n.bank_key = $bank_key
WITH e, n, nm
OPTIONAL MATCH (e)-[existing:KNOWN_AS]->(n)
WHERE existing.merge_id IS NULL
WITH e, n, nm, head(collect(existing)) AS existing
CALL (e, n, nm, existing) {
  WITH e, n, nm WHERE existing IS NULL
  CREATE (e)-[k:KNOWN_AS]->(n)
  SET k.source = nm.source, k.first_memory_id = nm.first_memory_id, k.at = datetime(nm.at),
      k.surfaces = nm.texts, k.stated = nm.stated, k.memory_ids = nm.memory_ids
  UNION
  WITH existing, nm WHERE existing IS NOT NULL
  SET existing.stated = existing.stated OR nm.stated,
      existing.surfaces = existing.surfaces
                          + [t IN nm.texts WHERE NOT t IN existing.surfaces],
      existing.memory_ids = existing.memory_ids
                            + [id IN nm.memory_ids WHERE NOT id IN existing.memory_ids]
}
