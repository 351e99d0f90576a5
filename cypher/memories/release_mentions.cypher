// A fact leaves the active graph (invalidated or deleted): its entities lose its mention.
// mention_count counts valid facts only; first_seen/last_seen are recomputed from the remaining
// valid facts only when a leaving fact held the extreme (cheap for hubs), and kept as they are
// when none remains (the entity stays as a historical record). Observations count nothing.
// params: $bank_id, $memory_ids (facts still holding their MENTIONS edges)
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})-[:MENTIONS]->(e:Entity)
WITH e, count(DISTINCT m) AS n, collect(m.mentioned_at) AS ats
SET e.mention_count = CASE WHEN e.mention_count > n THEN e.mention_count - n ELSE 0 END
WITH e, ats
WHERE e.first_seen IN ats OR e.last_seen IN ats
CALL (e) {
  OPTIONAL MATCH (e)<-[:MENTIONS]-(o:Memory)
  WHERE o.state = 'valid' AND NOT o.id IN $memory_ids AND NOT o:Observation
  RETURN min(o.mentioned_at) AS first, max(o.mentioned_at) AS last
}
SET e.first_seen = coalesce(first, e.first_seen), e.last_seen = coalesce(last, e.last_seen)
RETURN count(e) AS recomputed
