// The type each active mention of the given entities was given, and whether a local model
// guessed it, with the entity's current type and label flag: what an entity's type is decided
// from (app/resolve/entity_types.py). Observations' MENTIONS (copies of their sources') vote
// nothing; a mention with no recorded type abstains.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (e:Entity {bank_id: $bank_id, id: id})
OPTIONAL MATCH (m:Memory)-[r:MENTIONS]->(e)
WHERE NOT m:Observation AND r.mention_type IS NOT NULL
WITH e, collect({type: r.mention_type, guessed: coalesce(r.type_guessed, false)}) AS votes
RETURN e.id AS id, e.type AS type, coalesce(e.is_label, false) AS is_label,
       [v IN votes WHERE v.type IS NOT NULL] AS votes
