// One page of a bank's entities, most mentioned first, with the total. The name filter finds
// entities by any of their names: the exact name key through the Name index, or the words of
// the text through the entity_lookup full-text index (scoped by bank_key inside the Lucene
// query); the type filter compares case-insensitively.
// params: $bank_id, $key, $lucene, $type, $offset, $limit (null filters are off)
// mode: read
CALL () {
  UNWIND CASE WHEN $key IS NULL AND $lucene IS NULL THEN [1] ELSE [] END AS _
  MATCH (e:Entity {bank_id: $bank_id})
  RETURN e
  UNION
  UNWIND CASE WHEN $key IS NULL THEN [] ELSE [$key] END AS key
  MATCH (:Name {bank_id: $bank_id, key: key})<-[:KNOWN_AS]-(e:Entity)
  RETURN e
  UNION
  UNWIND CASE WHEN $lucene IS NULL THEN [] ELSE [$lucene] END AS lucene
  CALL db.index.fulltext.queryNodes('entity_lookup', lucene) YIELD node AS e
  WHERE e.bank_id = $bank_id
  RETURN e
}
WITH e
WHERE $type IS NULL OR toLower(e.type) = toLower($type)
WITH e ORDER BY e.mention_count DESC, e.canonical_name, e.id
WITH collect(e) AS found
RETURN size(found) AS total,
       [x IN found[$offset..($offset + $limit)] |
        x {.id, .canonical_name, .type, .mention_count, .first_seen, .last_seen, .is_label}]
       AS items
