// Top entities by mentions: the people, organisations, places and things the bank's valid facts
// name most, with when they were first and last mentioned, how many entities they co-occur
// with, and the other names they are known by.
// params: $bank_id, $limit = 20
// mode: read
MATCH (e:Entity {bank_id: $bank_id})
WITH e ORDER BY e.mention_count DESC, e.canonical_name, e.id LIMIT toInteger($limit)
RETURN e.id AS id, e.canonical_name AS name, e.type AS type, e.mention_count AS mentions,
       e.first_seen AS first_seen, e.last_seen AS last_seen,
       COUNT { MATCH (e)-[:CO_OCCURS]-(x:Entity) RETURN DISTINCT x } AS neighbours,
       COLLECT {
         MATCH (e)-[:KNOWN_AS]->(n:Name)
         WHERE n.key <> e.name_key
         WITH DISTINCT n.text AS alias ORDER BY alias
         RETURN alias LIMIT 10
       } AS aliases
ORDER BY mentions DESC, name, id
