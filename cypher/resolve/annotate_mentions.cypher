// Record on a batch's MENTIONS edges the type each mention was given (mention_type: an
// archived link keeps its own kind in "type"), whether that type was a local model's guess
// (type_guessed) and whether it asked for an exact match only (resolve_entities: false), so
// that a settle replays them as they came; and mark the fact until a settle has covered it
// (settle_pending: the settle runs behind the write, and after a crash, at the next start).
// params: $bank_id, $mentions [{memory_id, entity_id, mention, type, guessed, exact}]
// mode: write
UNWIND $mentions AS row
MATCH (m:Memory {bank_id: $bank_id, id: row.memory_id})-[r:MENTIONS]->
      (:Entity {bank_id: $bank_id, id: row.entity_id})
WHERE r.mention = row.mention
SET r.mention_type = row.type, r.exact = row.exact, r.type_guessed = row.guessed,
    m.settle_pending = true
