// An observation's derived fields follow its sources: proof_count is the number of distinct
// valid sources; MENTIONS are the union of the valid sources' entities (the mention is the
// entity's canonical name); entity_names (keyword channel) is rebuilt from them. Observations
// carry no entity counts: mention_count and CO_OCCURS count facts only.
// params: $bank_id, $observation_ids
// mode: write
UNWIND $observation_ids AS id
MATCH (o:Observation {bank_id: $bank_id, id: id})
WHERE o.state = 'valid'
CALL (o) {
  MATCH (o)-[r:MENTIONS]->(:Entity)
  DELETE r
  RETURN count(*) AS dropped
}
CALL (o) {
  OPTIONAL MATCH (o)-[:DERIVED_FROM]->(s:Memory)
  WHERE s.state = 'valid'
  RETURN count(DISTINCT s) AS valid
}
CALL (o) {
  MATCH (o)-[:DERIVED_FROM]->(s:Memory)-[:MENTIONS]->(e:Entity)
  WHERE s.state = 'valid'
  WITH DISTINCT e ORDER BY e.canonical_name, e.id
  CREATE (o)-[:MENTIONS {mention: e.canonical_name}]->(e)
  RETURN collect(e.canonical_name) AS names
}
SET o.proof_count = valid,
    o.entity_names = CASE WHEN size(names) = 0 THEN ''
                     ELSE reduce(s = names[0], n IN names[1..] | s + ' · ' + n) END
RETURN o.id AS id, valid
