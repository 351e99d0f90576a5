// Candidate entities for each probe (a name to resolve): exact name key through the Name
// index, then the full-text entity_lookup index (folded tokens, fuzzy tokens, lookup keys).
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
RETURN p.i AS i, collect(id)[..$limit] AS ids
