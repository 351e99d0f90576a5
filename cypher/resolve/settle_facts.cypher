// The facts that mention any of $ids (active mentions), each with every entity it mentions:
// the surface, the type the mention was given and whether a local model guessed it, and
// whether the mention may not move (an exact-only mention, a vocabulary value). A settle
// replays them. A mention recorded without a type (resolve/annotate_mentions wrote its
// type_guessed) replays without one: the entity's type is the majority of its mentions' votes
// and changes as they arrive, so read back as the mention's own it would turn an untyped
// mention into a firm vote for whatever the majority is that day. Only an edge never annotated
// (written by an older version, or by a curator's edit of the fact) takes the entity's type.
// The time comes as ISO 8601 text (the driver decodes a temporal value in pure Python, and a
// settle reads up to hundreds of facts). Observations are left out: their mentions are their
// sources' entities (observations/refresh), not evidence of their own, and counted as facts
// they would say each source's names and words twice.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (:Entity {bank_id: $bank_id, id: id})<-[:MENTIONS]-(m:Memory)
WHERE NOT m:Observation
WITH DISTINCT m
MATCH (m)-[r:MENTIONS]->(x:Entity)
WITH m, r, x ORDER BY x.id, r.mention
RETURN m.id AS memory_id, toString(m.mentioned_at) AS at, m.text AS content,
       collect({entity_id: x.id, text: r.mention,
                type: CASE WHEN r.type_guessed IS NULL THEN x.type ELSE r.mention_type END,
                type_guessed: coalesce(r.type_guessed, false),
                pinned: coalesce(r.exact, false) OR coalesce(x.is_label, false)}) AS mentions
