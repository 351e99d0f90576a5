// One entity as the API shows it: its properties, every name claim (KNOWN_AS edge with its
// properties and a reference valid inside the transaction), its most frequent co-occurring
// entities, and how many open reviews are about it.
// params: $bank_id, $id, $neighbours
// mode: read
MATCH (e:Entity {bank_id: $bank_id, id: $id})
CALL (e) {
  MATCH (e)-[r:CO_OCCURS]-(o:Entity)
  WITH o, r ORDER BY r.count DESC, o.canonical_name, o.id LIMIT $neighbours
  RETURN collect({id: o.id, name: o.canonical_name, count: r.count}) AS neighbours
}
RETURN e {.id, .canonical_name, .name_key, .type, .mention_count, .first_seen, .last_seen,
          .is_label} AS entity,
       [(e)-[k:KNOWN_AS]->(n:Name) | k {.*, ref: elementId(k), key: n.key, text: n.text}]
       AS claims,
       neighbours,
       COUNT { (e)<-[:ABOUT]-(:Review {status: 'open'}) } AS open_reviews
