// Seed a bank with known entities in bulk (imports, scale benchmarks): each entity with its
// lookup fields and its names as claims (source 'import'), as the resolver would have stored
// them. Ids must be new; Name nodes are shared per key.
// params: $bank_id, $bank_key, $entities [{id, canonical_name, name_key, type, first, last,
//   mention_count, search_text, lookup_keys, series, names: [{key, text, stated}]}]
// mode: write
UNWIND $entities AS ent
CREATE (e:Entity {bank_id: $bank_id, id: ent.id})
SET e.canonical_name = ent.canonical_name, e.name_key = ent.name_key, e.type = ent.type,
    e.is_label = false, e.mention_count = ent.mention_count, e.first_seen = ent.first,
    e.last_seen = ent.last, e.created_at = datetime(), e.bank_key = $bank_key,
    e.search_text = ent.search_text, e.lookup_keys = ent.lookup_keys, e.series = ent.series
WITH e, ent
UNWIND ent.names AS nm
MERGE (n:Name {bank_id: $bank_id, key: nm.key})
ON CREATE SET n.text = nm.text, n.bank_key = $bank_key
CREATE (e)-[k:KNOWN_AS]->(n)
SET k.source = 'import', k.stated = nm.stated, k.surfaces = [nm.text], k.memory_ids = [],
    k.at = ent.first
RETURN count(DISTINCT e) AS entities
