// A bank's size and its hubs: how many facts it holds (invalidated ones included: counting only
// valid ones would read a property per fact, and a share needs no precision), and every name
// of each entity mentioned by at least $min_share of them (names too common to steer the vector
// channel; app/recall/query_text.py). Cached per bank and refreshed off the request path.
// params: $bank_id, $min_share
// mode: read
CALL (){
  MATCH (m:Memory {bank_id: $bank_id})
  RETURN count(m) AS facts
}
CALL (facts) {
  MATCH (e:Entity {bank_id: $bank_id})
  WHERE facts >= 20 AND e.mention_count >= $min_share * facts
  MATCH (e)-[:KNOWN_AS]->(n:Name)
  WITH DISTINCT n
  RETURN collect(n.key) AS keys
}
RETURN facts, keys
