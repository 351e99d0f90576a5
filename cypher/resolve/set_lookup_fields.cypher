// The full-text lookup fields of entities whose names changed.
// params: $bank_id, $entities [{id, search_text, lookup_keys, series}]
// mode: write
UNWIND $entities AS ent
MATCH (e:Entity {bank_id: $bank_id, id: ent.id})
SET e.search_text = ent.search_text, e.lookup_keys = ent.lookup_keys, e.series = ent.series
