// Facts written but not covered by a settle (a crash between a write and its bank's settle),
// a page at a time, each with the mentions it was written with; of one bank, or of all when
// $bank_id is null. Banks in $skip_banks (deleted while their facts were read) are left out.
// params: $bank_id, $skip_banks, $limit
// mode: read
MATCH (m:Memory)
WHERE m.settle_pending = true AND ($bank_id IS NULL OR m.bank_id = $bank_id)
  AND NOT m.bank_id IN $skip_banks
WITH m LIMIT $limit
OPTIONAL MATCH (m)-[r:MENTIONS]->(x:Entity)
RETURN m.bank_id AS bank_id, m.id AS memory_id,
       collect(CASE WHEN x IS NULL THEN null ELSE
                 {entity_id: x.id, text: r.mention, type: r.mention_type,
                  type_guessed: coalesce(r.type_guessed, false)} END) AS mentions
