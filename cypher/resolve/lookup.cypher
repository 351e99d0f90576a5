// Candidate entities for each probe (a name to resolve): exact name key through the Name
// index, then the full-text entity_lookup index (folded tokens, fuzzy tokens, lookup keys),
// $limit a probe; one row per entity found, with every name key, its type, canonical name and
// label flag, so that the caller tells which hits a mention could resolve to without another
// round trip (as resolve/names_of reads them), and the probes ($probes.i) that found it.
// params: $bank_id, $probes [{i, key, lucene}], $limit
// mode: read
UNWIND $probes AS p
CALL (p) {
  MATCH (:Name {bank_id: $bank_id, key: p.key})<-[:KNOWN_AS]-(e:Entity)
  RETURN e.id AS id, 1000.0 AS score
  UNION
  CALL db.index.fulltext.queryNodes('entity_lookup', p.lucene, {limit: $limit})
  YIELD node, score
  WHERE node.bank_id = $bank_id
  RETURN node.id AS id, score
}
WITH p, id, max(score) AS score
ORDER BY p.i, score DESC, id
WITH p, collect(id)[..$limit] AS ids
UNWIND ids AS id
WITH id, collect(p.i) AS found_by
MATCH (e:Entity {bank_id: $bank_id, id: id})
OPTIONAL MATCH (e)-[:KNOWN_AS]->(n:Name)
RETURN e.id AS id, e.type AS type, e.canonical_name AS canonical_name,
       coalesce(e.is_label, false) AS is_label, collect(DISTINCT n.key) AS keys, found_by
