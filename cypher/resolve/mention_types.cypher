// The types the active mentions of the given entities were given, counted per (type, whether
// a local model guessed it), with the entity's current type and label flag: what an entity's
// type is decided from (app/resolve/entity_types.py). Counted here, not listed: an entity a
// bank talks about has hundreds of mentions and a handful of distinct types. Observations'
// MENTIONS (copies of their sources') vote nothing; a mention with no recorded type abstains.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (e:Entity {bank_id: $bank_id, id: id})
OPTIONAL MATCH (m:Memory)-[r:MENTIONS]->(e)
WHERE NOT m:Observation AND r.mention_type IS NOT NULL
WITH e, r.mention_type AS type, coalesce(r.type_guessed, false) AS guessed, count(r) AS n
WITH e, collect(CASE WHEN type IS NULL THEN null ELSE {type: type, guessed: guessed, n: n} END) AS votes
RETURN e.id AS id, e.type AS type, coalesce(e.is_label, false) AS is_label, votes
