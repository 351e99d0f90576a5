// Entities named in a query, spelled loosely: full-text (fuzzy) match of the query's words on
// every name an entity has been called, scoped to the bank inside the Lucene query.
// One row with a list: the Python driver spends ~50 µs per record, far more than per list item.
// params: $bank_id, $lucene, $limit
// mode: read
CALL db.index.fulltext.queryNodes('name_search', $lucene, {limit: $limit})
YIELD node, score
WHERE score > 0 AND node.bank_id = $bank_id
MATCH (node)<-[:KNOWN_AS]-(e:Entity)
// A name may carry one KNOWN_AS claim per mention (provenance): one row per entity.
WITH DISTINCT node, score, e
RETURN collect({text: node.text, score: score, entity_id: e.id, name: e.canonical_name,
                type: coalesce(e.type, ''), degree: coalesce(e.mention_count, 0)}) AS names
