// TEMPORAL links from new facts to other facts of the same bank.
// params: $bank_id, $links [{source, target, weight}]
// mode: write
UNWIND $links AS l
MATCH (a:Memory {bank_id: $bank_id, id: l.source})
MATCH (b:Memory {bank_id: $bank_id, id: l.target})
MERGE (a)-[r:TEMPORAL]->(b)
SET r.weight = l.weight
