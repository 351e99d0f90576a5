// Edit a fact's own properties (the ones sent; a null value removes the property) and its type
// label; marks it edited and, when its vector must change, pending until the store confirms.
// params: $bank_id, $memory_id, $props (map), $fact_type (null: unchanged), $edited_at,
//   $pending
// mode: write
MATCH (m:Memory {bank_id: $bank_id, id: $memory_id})
SET m += $props, m.edited_at = $edited_at,
    m.vector_pending = coalesce(m.vector_pending, false) OR $pending
FOREACH (_ IN CASE WHEN $fact_type IS NULL THEN [] ELSE [1] END |
  REMOVE m:World:Experience:Observation)
FOREACH (_ IN CASE WHEN $fact_type = 'world' THEN [1] ELSE [] END | SET m:World)
FOREACH (_ IN CASE WHEN $fact_type = 'experience' THEN [1] ELSE [] END | SET m:Experience)
FOREACH (_ IN CASE WHEN $fact_type = 'observation' THEN [1] ELSE [] END | SET m:Observation)
RETURN m.id AS id
