// Benchmark fill (scripts/bench_console.py): copy number $copy of $limit of a bank's retained
// documents from $offset on (by id; copies are never copied), each with its chunks, their facts
// and the facts' mentions, dated $copy days earlier; each mentioned entity's count grows by one
// per copied fact. Copies are real nodes in every index a page reads (bank, created_at,
// document, full text); they have no vectors and no links between facts.
// params: $bank_id, $copy, $offset, $limit
// mode: write
MATCH (d:Document {bank_id: $bank_id})
WHERE d.copy_of IS NULL
WITH d ORDER BY d.id SKIP $offset LIMIT $limit
WITH d, duration({days: $copy}) AS shift, '~' + toString($copy) AS suffix
CREATE (d2:Document)
SET d2 = d {.*, id: d.id + suffix, copy_of: d.id, created_at: d.created_at - shift,
            updated_at: d.updated_at - shift}
WITH d, d2, shift, suffix
MATCH (c:Chunk {bank_id: $bank_id})-[:PART_OF]->(d)
CREATE (c2:Chunk)-[:PART_OF]->(d2)
SET c2 = c {.*, id: c.id + suffix, document_id: d2.id, created_at: c.created_at - shift}
WITH c, c2, d2, shift, suffix
MATCH (m:Memory {bank_id: $bank_id})-[:FROM]->(c)
CREATE (m2:Memory)-[:FROM]->(c2)
SET m2 = m {.*, id: m.id + suffix, document_id: d2.id, chunk_id: c2.id,
            created_at: m.created_at - shift, mentioned_at: m.mentioned_at - shift}
FOREACH (_ IN CASE WHEN m:World THEN [1] ELSE [] END | SET m2:World)
FOREACH (_ IN CASE WHEN m:Experience THEN [1] ELSE [] END | SET m2:Experience)
WITH m, m2
CALL (m, m2) {
  MATCH (m)-[r:MENTIONS]->(e:Entity)
  CREATE (m2)-[:MENTIONS {mention: r.mention}]->(e)
  WITH DISTINCT e
  SET e.mention_count = e.mention_count + 1
}
RETURN count(m2) AS copied
