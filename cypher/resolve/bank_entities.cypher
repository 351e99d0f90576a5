// How many entities a bank holds, counted up to $cap (entity resolution's hub rule scales with
// it; past the cap, 40% of it is already a degree no entity but a hub reaches, and counting a
// large bank in full on every retain would grow with the bank).
// params: $bank_id, $cap
// mode: read
MATCH (e:Entity {bank_id: $bank_id})
WITH e LIMIT $cap
RETURN count(e) AS n
