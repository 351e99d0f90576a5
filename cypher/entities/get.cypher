// One entity as the API shows it: its properties, every name claim (KNOWN_AS edge with its
// properties and a reference valid inside the transaction), its most frequent co-occurring
// entities, how many open reviews are about it, and its 100 latest facts with every mention
// of each (surface, type, entity), from which the qualifiers stated next to its names are read.
// For a hub (named by more than $hub_mentions facts) `said` is left empty and `hub` true: sorting
// all its facts costs their number, so entities/said_hub reads them in index order instead.
// params: $bank_id, $id, $neighbours, $hub_mentions
// mode: read
MATCH (e:Entity {bank_id: $bank_id, id: $id})
CALL (e) {
  MATCH (e)-[r:CO_OCCURS]-(o:Entity)
  WITH o, r ORDER BY r.count DESC, o.canonical_name, o.id LIMIT $neighbours
  RETURN collect({id: o.id, name: o.canonical_name, count: r.count}) AS neighbours
}
CALL (e) {
  MATCH (e)<-[:MENTIONS]-(m:Memory)
  WHERE coalesce(e.mention_count, 0) <= $hub_mentions
  WITH DISTINCT m ORDER BY m.mentioned_at DESC, m.id LIMIT 100
  CALL (m) {
    MATCH (m)-[r:MENTIONS]->(x:Entity)
    WITH r, x ORDER BY x.id, r.mention
    RETURN collect({entity_id: x.id, text: r.mention, type: coalesce(r.mention_type, x.type)})
           AS mentions
  }
  RETURN collect({memory_id: m.id, at: m.mentioned_at, content: m.text, mentions: mentions})
         AS said
}
RETURN e {.id, .canonical_name, .name_key, .type, .mention_count, .first_seen, .last_seen,
          .is_label} AS entity,
       [(e)-[k:KNOWN_AS]->(n:Name) | k {.*, ref: elementId(k), key: n.key, text: n.text}]
       AS claims,
       neighbours, said, coalesce(e.mention_count, 0) > $hub_mentions AS hub,
       COUNT { (e)<-[:ABOUT]-(:Review {status: 'open'}) } AS open_reviews
