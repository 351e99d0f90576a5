// An entity's co-occurrence neighbourhood: the $limit entities most often named in the same
// valid fact as it (how many facts, first and last time), each with the other neighbours in this
// list it also co-occurs with — the local cluster around someone.
// params: $bank_id, $entity_id, $limit = 25
// mode: read
MATCH (:Entity {bank_id: $bank_id, id: $entity_id})-[r:CO_OCCURS]-(x:Entity)
WITH x, max(r.count) AS count, min(r.first_at) AS first_at, max(r.last_at) AS last_at
ORDER BY count DESC, x.mention_count DESC, x.id
LIMIT toInteger($limit)
WITH collect({x: x, count: count, first_at: first_at, last_at: last_at}) AS near
WITH near, [n IN near | n.x] AS xs
UNWIND near AS n
WITH n, n.x AS x, xs
RETURN x.id AS id, x.canonical_name AS name, x.type AS type, n.count AS count,
       n.first_at AS first_at, n.last_at AS last_at,
       [y IN xs WHERE y <> x AND EXISTS { (x)-[:CO_OCCURS]-(y) } | y.canonical_name] AS also_with
ORDER BY count DESC, x.mention_count DESC, id
