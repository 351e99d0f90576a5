// Reviews as the API shows them, in the order asked: the review and both entities it is about
// (an entity merged away since shows as its shell, with the entity it went into), each with
// its names and most frequent co-occurring entities.
// params: $bank_id, $ids, $neighbours
// mode: read
UNWIND $ids AS id
MATCH (r:Review {bank_id: $bank_id, id: id})
CALL (r) {
  MATCH (r)-[:ABOUT]->(x)
  CALL (x) {
    MATCH (x)-[c:CO_OCCURS]-(o:Entity)
    WITH o, c ORDER BY c.count DESC, o.canonical_name, o.id LIMIT $neighbours
    RETURN collect({id: o.id, name: o.canonical_name, count: c.count}) AS neighbours
  }
  RETURN collect(x {.id, .canonical_name, .type, .mention_count, .merged_into,
                    names: [(x)-[:KNOWN_AS]->(n:Name) | n.text], neighbours: neighbours})
         AS sides
}
RETURN r {.*} AS review, sides
