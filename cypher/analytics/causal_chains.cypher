// Causal chains ending at a fact: what led to it, following CAUSED_BY (effect -> cause) back at
// most 6 hops through valid facts. One row per chain, root cause first and $memory_id last; only
// complete chains (they stop at a fact with no further recorded cause, or at the hop bound), the
// longest first; strength = the product of the link weights.
// params: $bank_id, $memory_id, $limit = 25
// mode: read
MATCH (fact:Memory {bank_id: $bank_id, id: $memory_id})
MATCH p = (fact)-[:CAUSED_BY*1..6]->(root:Memory)
WHERE all(m IN nodes(p) WHERE m.bank_id = $bank_id)
  AND (length(p) = 6
       OR NOT EXISTS { MATCH (root)-[:CAUSED_BY]->(next:Memory) WHERE NOT next IN nodes(p) })
WITH p, root, reduce(s = 1.0, r IN relationships(p) | s * coalesce(r.weight, 1.0)) AS strength
ORDER BY length(p) DESC, strength DESC, root.id
LIMIT toInteger($limit)
RETURN length(p) AS hops, strength,
       [m IN reverse(nodes(p)) | m {.id, .text, .fact_type, .occurred_start}] AS chain
