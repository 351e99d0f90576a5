// The facts that mention the entities a fact mentions, each entity's newest $per_entity (by
// created_at) with the entity's name, for app/curate/browse to merge (most shared entities
// first). A hub (named by more than $hub_mentions facts) is only named in `hubs`: sorting all
// its facts costs their number, so memories/co_mentioned_hub reads them in index order.
// params: $bank_id, $memory_id, $per_entity, $hub_mentions
// mode: read
MATCH (m:Memory {bank_id: $bank_id, id: $memory_id})
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
WITH m, collect(DISTINCT e) AS entities
CALL (m, entities) {
  UNWIND entities AS e
  WITH e WHERE coalesce(e.mention_count, 0) <= $hub_mentions
  CALL (m, e) {
    MATCH (e)<-[:MENTIONS]-(o:Memory {bank_id: $bank_id})
    WHERE o <> m
    WITH DISTINCT o ORDER BY o.created_at DESC LIMIT $per_entity
    RETURN o
  }
  RETURN collect({id: o.id, text: o.text, state: o.state, created_at: o.created_at,
                  name: e.canonical_name}) AS rows
}
RETURN rows,
       [e IN entities WHERE coalesce(e.mention_count, 0) > $hub_mentions
        | {id: e.id, name: e.canonical_name}] AS hubs
