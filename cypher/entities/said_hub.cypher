// A hub entity's 100 latest facts (mentioned_at descending, id ascending) with every mention of
// each, shaped as entities/get's `said`. The bank's facts are read in the order of the
// (bank_id, mentioned_at) index and kept when they name the entity; a hub (more than
// HUB_MENTIONS facts) fills the 100 within a few hundred rows, where entities/get's sort of its
// facts costs the hub's size. bank_id leads the ORDER BY so that the planner takes the index's
// order (see memories/list). Facts carry mentioned_at from retain on; one without it is not met.
// params: $bank_id, $id
// mode: read
MATCH (m:Memory {bank_id: $bank_id})
USING INDEX m:Memory(bank_id, mentioned_at)
WHERE m.mentioned_at IS NOT NULL
  AND EXISTS { MATCH (m)-[:MENTIONS]->(:Entity {bank_id: $bank_id, id: $id}) }
WITH m ORDER BY m.bank_id DESC, m.mentioned_at DESC, m.id LIMIT 100
CALL (m) {
  MATCH (m)-[r:MENTIONS]->(x:Entity)
  WITH r, x ORDER BY x.id, r.mention
  RETURN collect({entity_id: x.id, text: r.mention, type: coalesce(r.mention_type, x.type)})
         AS mentions
}
RETURN collect({memory_id: m.id, at: m.mentioned_at, content: m.text, mentions: mentions})
       AS said
