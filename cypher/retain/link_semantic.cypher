// SEMANTIC links from new facts to other facts of the same bank, grouped by source (each
// source is looked up once for its ~50 links: measured 30 % faster than one row per link).
// params: $bank_id, $sources [{source, links: [{target, weight}]}]
// mode: write
UNWIND $sources AS s
MATCH (a:Memory {bank_id: $bank_id, id: s.source})
UNWIND s.links AS l
MATCH (b:Memory {bank_id: $bank_id, id: l.target})
MERGE (a)-[r:SEMANTIC]->(b)
SET r.weight = l.weight
