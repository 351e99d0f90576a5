// Possible duplicates: pairs of entities kept apart whose names look alike — every folded word
// of one's names is among the other's ("Sarah" / "Sarah Chen"), or they share a lookup key (core
// name, compact form, acronym: "UW" / "University of Washington") — AND that co-occur with at
// least $min_shared same entities. Most shared neighbours first; pairs a reviewer decided are
// different are left out, an open review on the pair is shown. A word or key that more than
// $max_group entities share (a common word) does not pair entities on its own (bounds the work).
// params: $bank_id, $limit = 20, $min_shared = 1, $max_group = 50
// mode: read
MATCH (e:Entity {bank_id: $bank_id})
UNWIND split(coalesce(e.search_text, ''), ' ') + split(coalesce(e.lookup_keys, ''), ' ') AS token
WITH token, collect(DISTINCT e) AS group
WHERE token <> '' AND size(group) > 1 AND size(group) <= $max_group
UNWIND group AS a
UNWIND group AS b
WITH DISTINCT a, b
WHERE a.id < b.id
WITH a, b, split(coalesce(a.search_text, ''), ' ') AS wa,
     split(coalesce(b.search_text, ''), ' ') AS wb,
     [k IN split(coalesce(a.lookup_keys, ''), ' ') WHERE k <> ''] AS ka,
     [k IN split(coalesce(b.lookup_keys, ''), ' ') WHERE k <> ''] AS kb
WITH a, b, all(w IN wa WHERE w IN wb) OR all(w IN wb WHERE w IN wa) AS name_inside,
     any(k IN ka WHERE k IN kb) AS same_key
WHERE (name_inside OR same_key) AND NOT EXISTS { (a)-[:DIFFERENT_FROM]-(b) }
CALL (a, b) {
  OPTIONAL MATCH (a)-[:CO_OCCURS]-(x:Entity)-[:CO_OCCURS]-(b)
  WITH DISTINCT x ORDER BY x.mention_count DESC, x.canonical_name
  RETURN count(x) AS shared, collect(x.canonical_name)[..5] AS shared_with
}
WITH a, b, name_inside, same_key, shared, shared_with
WHERE shared >= $min_shared
ORDER BY shared DESC, a.mention_count + b.mention_count DESC, a.id, b.id
LIMIT toInteger($limit)
RETURN a {.id, name: a.canonical_name, .type, mentions: a.mention_count} AS a,
       b {.id, name: b.canonical_name, .type, mentions: b.mention_count} AS b,
       CASE WHEN name_inside THEN 'name inside name' ELSE 'same lookup key' END AS why,
       shared, shared_with,
       coalesce(head(COLLECT { MATCH (a)-[r:CO_OCCURS]-(b) RETURN r.count }), 0) AS named_together,
       head(COLLECT {
         MATCH (r:Review {bank_id: $bank_id})-[:ABOUT]->(a)
         WHERE EXISTS { (r)-[:ABOUT]->(b) }
         RETURN r.status
       }) AS review
