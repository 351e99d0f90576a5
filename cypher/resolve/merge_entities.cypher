// Fold entity $gone into $keep, audited: its MENTIONS and KNOWN_AS move to $keep tagged with
// the merge id (so a revert can move exactly those back), its co-occurrence edges go (they
// are recomputed from MENTIONS), and it stays as a :MergedEntity shell pointing at $keep.
// params: $bank_id, $merge_id, $keep, $gone, $reason, $by, $evidence_json, $review_id
// mode: write
MATCH (k:Entity {bank_id: $bank_id, id: $keep})
MATCH (g:Entity {bank_id: $bank_id, id: $gone})
CREATE (rec:EntityMerge {bank_id: $bank_id, id: $merge_id})
SET rec.kind = 'merge', rec.keep = $keep, rec.gone = $gone, rec.reason = $reason,
    rec.by = $by, rec.evidence_json = $evidence_json, rec.review_id = $review_id,
    rec.state = 'active', rec.created_at = datetime(),
    rec.keep_name = k.canonical_name, rec.gone_name = g.canonical_name
CREATE (rec)-[:KEPT]->(k)
CREATE (rec)-[:ABSORBED]->(g)
WITH k, g, rec
CALL (k, g, rec) {
  MATCH (m:Memory)-[r:MENTIONS]->(g)
  CREATE (m)-[moved:MENTIONS]->(k)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = g.id
  DELETE r
}
CALL (k, g, rec) {
  MATCH (g)-[r:KNOWN_AS]->(n:Name)
  CREATE (k)-[moved:KNOWN_AS]->(n)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = g.id
  DELETE r
}
CALL (g) {
  MATCH (g)-[r:CO_OCCURS]-()
  DELETE r
}
REMOVE g:Entity
SET g:MergedEntity, g.merged_into = k.id, g.merge_id = rec.id
RETURN rec.id AS merge_id
