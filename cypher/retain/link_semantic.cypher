// SEMANTIC links from new facts to other facts of the same bank, grouped by source (each
// source is looked up once for its ~50 links: measured 30 % faster than one row per link).
// CREATE, not MERGE: every source is a fact without SEMANTIC links (new in this retain, an
// edited fact whose links were just removed, or a repaired fact whose outgoing links were just
// removed), and each pair comes once; MERGE would search the source's edges again for every
// link it adds.
// params: $bank_id, $sources [{source, links: [{target, weight}]}]
// mode: write
UNWIND $sources AS s
MATCH (a:Memory {bank_id: $bank_id, id: s.source})
UNWIND s.links AS l
MATCH (b:Memory {bank_id: $bank_id, id: l.target})
CREATE (a)-[:SEMANTIC {weight: l.weight}]->(b)
