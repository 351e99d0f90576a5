// How many entities a bank holds (entity resolution's hub rule scales with it).
// params: $bank_id
// mode: read
MATCH (e:Entity {bank_id: $bank_id})
RETURN count(e) AS n
