// An observation with its evidence, as a graph: the facts it is derived from (DERIVED_FROM),
// each with the chunk and document it was extracted from, the entities it mentions, and its
// revisions (the history of its wording and sources), at most $limit paths. $memory_id picks
// the observation; null: the best-supported valid one.
// params: $bank_id, $memory_id = null, $limit = 200
// mode: read
CALL () {
  MATCH (o:Observation {bank_id: $bank_id})
  WHERE ($memory_id IS NULL AND o.state = 'valid') OR o.id = $memory_id
  RETURN o ORDER BY o.proof_count DESC, o.updated_at DESC, o.id LIMIT 1
}
CALL (o) {
  MATCH p = (o)-[:DERIVED_FROM]->(:Memory)-[:FROM]->(:Chunk)-[:PART_OF]->(:Document)
  RETURN p
  UNION
  MATCH p = (o)-[:DERIVED_FROM]->(:Memory)
  RETURN p
  UNION
  MATCH p = (o)-[:MENTIONS]->(:Entity)
  RETURN p
  UNION
  MATCH p = (o)-[:HAS_REVISION]->(:MemoryRevision)
  RETURN p
}
RETURN p LIMIT toInteger($limit)
