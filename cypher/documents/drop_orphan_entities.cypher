// Among the given entities, delete those no fact mentions any more (neither an active MENTIONS
// nor an archived one of an invalidated fact), with their KNOWN_AS claims and co-occurrences;
// then the Name nodes nobody is known as any more. Returns the deleted entity ids.
// params: $bank_id, $entity_ids
// mode: write
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {bank_id: $bank_id, id: entity_id})
WHERE NOT EXISTS { (e)<-[:MENTIONS]-(:Memory) }
  AND NOT EXISTS { (e)<-[a:ARCHIVED_LINK]-(:Memory) WHERE a.type = 'MENTIONS' }
OPTIONAL MATCH (e)-[:KNOWN_AS]->(n:Name)
WITH e, e.id AS id, collect(n) AS names
DETACH DELETE e
WITH collect(id) AS ids, collect(names) AS nested
CALL (nested) {
  UNWIND nested AS names
  UNWIND names AS n
  WITH DISTINCT n
  WHERE NOT EXISTS { (n)<-[:KNOWN_AS]-() }
  DELETE n
  RETURN count(*) AS names_deleted
}
RETURN ids, names_deleted
