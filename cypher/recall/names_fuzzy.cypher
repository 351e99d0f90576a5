// Entities named in a query, spelled loosely: full-text (fuzzy) match of the query's words on
// every name an entity has been called, scoped to the bank inside the Lucene query.
// params: $bank_id, $lucene, $limit
// mode: read
CALL db.index.fulltext.queryNodes('name_search', $lucene, {limit: $limit})
YIELD node, score
WHERE score > 0 AND node.bank_id = $bank_id
MATCH (node)<-[:KNOWN_AS]-(e:Entity)
RETURN node.text AS text, score, e.id AS entity_id, e.canonical_name AS name,
       coalesce(e.type, '') AS type, coalesce(e.mention_count, 0) AS degree
