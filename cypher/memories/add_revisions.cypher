// Audit trail: one MemoryRevision per edit or state change of a fact, with the previous and new
// values of what changed (JSON) and the reason given.
// params: $bank_id, $revisions [{id, memory_id, at, kind, reason, fields, before_json,
//   after_json}]
// mode: write
UNWIND $revisions AS rev
MATCH (m:Memory {bank_id: $bank_id, id: rev.memory_id})
CREATE (r:MemoryRevision {bank_id: $bank_id, id: rev.id})
SET r += rev
CREATE (m)-[:HAS_REVISION]->(r)
