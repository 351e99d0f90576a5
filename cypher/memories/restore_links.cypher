// Put facts back into the active graph: every ARCHIVED_LINK touching them becomes its original
// typed relationship again (same direction, nodes and properties) when its other end is active
// (an entity, a valid fact, or a fact restored in the same call). A link to a fact that is still
// invalidated stays archived until that fact is restored too.
// params: $bank_id, $memory_ids
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})-[a:ARCHIVED_LINK]-(x)
WHERE x:Entity OR x.state = 'valid' OR x.id IN $memory_ids
WITH DISTINCT a
WITH a, startNode(a) AS s, endNode(a) AS t, a.type AS type,
     a {.*, type: null, archived_at: null} AS props
FOREACH (_ IN CASE WHEN type = 'MENTIONS' THEN [1] ELSE [] END |
  CREATE (s)-[r:MENTIONS]->(t) SET r = props)
FOREACH (_ IN CASE WHEN type = 'TEMPORAL' THEN [1] ELSE [] END |
  CREATE (s)-[r:TEMPORAL]->(t) SET r = props)
FOREACH (_ IN CASE WHEN type = 'SEMANTIC' THEN [1] ELSE [] END |
  CREATE (s)-[r:SEMANTIC]->(t) SET r = props)
FOREACH (_ IN CASE WHEN type = 'CAUSED_BY' THEN [1] ELSE [] END |
  CREATE (s)-[r:CAUSED_BY]->(t) SET r = props)
DELETE a
RETURN count(*) AS restored
