// Undo one merge or split's moves: every edge it tagged (MENTIONS, archived MENTIONS, KNOWN_AS,
// DIFFERENT_FROM) goes from $from back to $to with its earlier tag popped from the stacks, so
// its properties are exactly what they were before the move.
// Both ends must be :Entity (a merge revert relabels the shell first).
// params: $bank_id, $record_id, $from, $to
// mode: write
MATCH (f:Entity {bank_id: $bank_id, id: $from})
MATCH (t:Entity {bank_id: $bank_id, id: $to})
CALL (f, t) {
  MATCH (m:Memory)-[r:MENTIONS]->(f)
  WHERE r.merge_id = $record_id
  CREATE (m)-[back:MENTIONS]->(t)
  SET back = properties(r)
  WITH r, back, r.merge_stack AS ms, r.moved_stack AS mv
  SET back.merge_id = CASE WHEN last(ms) = '' THEN null ELSE last(ms) END,
      back.moved_from = CASE WHEN last(mv) = '' THEN null ELSE last(mv) END,
      back.merge_stack = CASE WHEN size(ms) > 1 THEN ms[..-1] ELSE null END,
      back.moved_stack = CASE WHEN size(mv) > 1 THEN mv[..-1] ELSE null END
  DELETE r
  RETURN count(*) AS mentions
}
CALL (f, t) {
  MATCH (m:Memory)-[r:ARCHIVED_LINK {type: 'MENTIONS'}]->(f)
  WHERE r.merge_id = $record_id
  CREATE (m)-[back:ARCHIVED_LINK]->(t)
  SET back = properties(r)
  WITH r, back, r.merge_stack AS ms, r.moved_stack AS mv
  SET back.merge_id = CASE WHEN last(ms) = '' THEN null ELSE last(ms) END,
      back.moved_from = CASE WHEN last(mv) = '' THEN null ELSE last(mv) END,
      back.merge_stack = CASE WHEN size(ms) > 1 THEN ms[..-1] ELSE null END,
      back.moved_stack = CASE WHEN size(mv) > 1 THEN mv[..-1] ELSE null END
  DELETE r
  RETURN count(*) AS archived
}
CALL (f, t) {
  MATCH (f)-[r:KNOWN_AS]->(n:Name)
  WHERE r.merge_id = $record_id
  CREATE (t)-[back:KNOWN_AS]->(n)
  SET back = properties(r)
  WITH r, back, r.merge_stack AS ms, r.moved_stack AS mv
  SET back.merge_id = CASE WHEN last(ms) = '' THEN null ELSE last(ms) END,
      back.moved_from = CASE WHEN last(mv) = '' THEN null ELSE last(mv) END,
      back.merge_stack = CASE WHEN size(ms) > 1 THEN ms[..-1] ELSE null END,
      back.moved_stack = CASE WHEN size(mv) > 1 THEN mv[..-1] ELSE null END
  DELETE r
  RETURN count(*) AS names
}
CALL (f, t) {
  MATCH (f)-[r:DIFFERENT_FROM]->(x)
  WHERE r.merge_id = $record_id
  CREATE (t)-[back:DIFFERENT_FROM]->(x)
  SET back = properties(r)
  WITH r, back, r.merge_stack AS ms, r.moved_stack AS mv
  SET back.merge_id = CASE WHEN last(ms) = '' THEN null ELSE last(ms) END,
      back.moved_from = CASE WHEN last(mv) = '' THEN null ELSE last(mv) END,
      back.merge_stack = CASE WHEN size(ms) > 1 THEN ms[..-1] ELSE null END,
      back.moved_stack = CASE WHEN size(mv) > 1 THEN mv[..-1] ELSE null END
  DELETE r
  RETURN count(*) AS outgoing
}
CALL (f, t) {
  MATCH (f)<-[r:DIFFERENT_FROM]-(x)
  WHERE r.merge_id = $record_id
  CREATE (t)<-[back:DIFFERENT_FROM]-(x)
  SET back = properties(r)
  WITH r, back, r.merge_stack AS ms, r.moved_stack AS mv
  SET back.merge_id = CASE WHEN last(ms) = '' THEN null ELSE last(ms) END,
      back.moved_from = CASE WHEN last(mv) = '' THEN null ELSE last(mv) END,
      back.merge_stack = CASE WHEN size(ms) > 1 THEN ms[..-1] ELSE null END,
      back.moved_stack = CASE WHEN size(mv) > 1 THEN mv[..-1] ELSE null END
  DELETE r
  RETURN count(*) AS incoming
}
RETURN mentions, archived, names, outgoing + incoming AS decisions
