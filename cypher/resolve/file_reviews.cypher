// Reviews: one per pair of entities, ever (its id is derived from the pair), so a pair
// decided once is never asked again; an open one gains the latest evidence.
// params: $bank_id, $reviews [{id, entity_a, entity_b, reason, evidence_json}]
// mode: write
UNWIND $reviews AS rv
MATCH (a:Entity {bank_id: $bank_id, id: rv.entity_a})
MATCH (b:Entity {bank_id: $bank_id, id: rv.entity_b})
MERGE (r:Review {bank_id: $bank_id, id: rv.id})
ON CREATE SET r.status = 'open', r.entity_a = rv.entity_a, r.entity_b = rv.entity_b,
              r.created_at = datetime(), r.reason = rv.reason, r.evidence_json = rv.evidence_json
WITH r, a, b, rv
WHERE r.status = 'open'
SET r.reason = rv.reason, r.evidence_json = rv.evidence_json, r.updated_at = datetime()
MERGE (r)-[:ABOUT]->(a)
MERGE (r)-[:ABOUT]->(b)
