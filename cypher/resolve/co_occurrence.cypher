// The co-occurrence count of each given pair of entities that has one (pairs without an edge
// return no row): the edges a load that left hubs out did not list, where they decide a merge.
// params: $bank_id, $pairs (each {a, b})
// mode: read
UNWIND $pairs AS pair
MATCH (a:Entity {bank_id: $bank_id, id: pair.a})
MATCH (a)-[r:CO_OCCURS]-(b:Entity {bank_id: $bank_id, id: pair.b})
RETURN a.id AS a, b.id AS b, r.count AS count
