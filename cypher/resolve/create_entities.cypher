// New entities decided by the resolver, with their lookup fields.
// params: $bank_id, $bank_key, $entities [{id, canonical_name, name_key, type, is_label, at,
//   search_text, lookup_keys, series}]
// Times arrive as ISO 8601 text (app/store/graph.py cypher_datetime) and become datetimes here.
// mode: write
UNWIND $entities AS ent
WITH ent, datetime(ent.at) AS at
CREATE (e:Entity {bank_id: $bank_id, id: ent.id})
SET e.canonical_name = ent.canonical_name, e.name_key = ent.name_key, e.type = ent.type,
    e.is_label = ent.is_label, e.mention_count = 0, e.first_seen = at,
    e.last_seen = at, e.created_at = datetime(), e.bank_key = $bank_key,
    e.search_text = ent.search_text, e.lookup_keys = ent.lookup_keys, e.series = ent.series
