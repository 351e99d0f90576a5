// Candidate entities for each probe (a name to resolve): every entity with the exact name key
// (Name index), and besides them up to $limit hits of the full-text entity_lookup index
// (folded tokens, fuzzy tokens, lookup keys). Kept apart so that many entities of one bare
// name (each a mention no one could place) never crowd out of sight the full names it may
// stand for. One row per entity found, with every name key, its type, canonical name and
// label flag, so that the caller tells which hits a mention could resolve to without another
// round trip (as resolve/names_of reads them), and the probes ($probes.i) that found it.
// params: $bank_id, $probes [{i, key, lucene}], $limit
// mode: read
UNWIND $probes AS p
CALL (p) {
  OPTIONAL MATCH (:Name {bank_id: $bank_id, key: p.key})<-[:KNOWN_AS]-(x:Entity)
  WITH p, collect(DISTINCT x.id) AS exact
  WITH exact, COLLECT {
    CALL db.index.fulltext.queryNodes('entity_lookup', p.lucene, {limit: $limit + size(exact)})
    YIELD node, score
    WHERE node.bank_id = $bank_id AND NOT node.id IN exact
    RETURN node.id ORDER BY score DESC, node.id LIMIT $limit
  } AS others
  RETURN exact + others AS ids
}
UNWIND ids AS id
WITH id, collect(p.i) AS found_by
MATCH (e:Entity {bank_id: $bank_id, id: id})
OPTIONAL MATCH (e)-[:KNOWN_AS]->(n:Name)
RETURN e.id AS id, e.type AS type, e.canonical_name AS canonical_name,
       coalesce(e.is_label, false) AS is_label, collect(DISTINCT n.key) AS keys, found_by
