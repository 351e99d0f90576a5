// Names are claims: each surface name (or stated alias) an entity was called, with the fact
// it came from. One Name node per normalised key per bank; one KNOWN_AS per entity and name.
// params: $bank_id, $bank_key, $names [{entity_id, key, text, source, memory_id, at}]
// mode: write
UNWIND $names AS nm
MATCH (e:Entity {bank_id: $bank_id, id: nm.entity_id})
MERGE (n:Name {bank_id: $bank_id, key: nm.key})
ON CREATE SET n.text = nm.text, n.bank_key = $bank_key
MERGE (e)-[k:KNOWN_AS]->(n)
ON CREATE SET k.source = nm.source, k.first_memory_id = nm.memory_id, k.at = nm.at,
              k.surfaces = [], k.memory_ids = []
SET k.surfaces = CASE WHEN nm.text IN k.surfaces THEN k.surfaces ELSE k.surfaces + nm.text END,
    k.memory_ids = CASE WHEN nm.memory_id IS NULL OR nm.memory_id IN k.memory_ids
                        THEN k.memory_ids ELSE k.memory_ids + nm.memory_id END
