// Mental models to refresh after consolidation: those whose trigger asks for it, with their
// scope and current evidence, to be matched against the memories a consolidation run touched.
// params: $bank_id
// mode: read
MATCH (mm:MentalModel {bank_id: $bank_id})
WHERE mm.refresh_after_consolidation = true
RETURN collect({id: mm.id, source_query: mm.source_query, trigger_json: mm.trigger_json,
                tags: coalesce(mm.tags, []), last_refreshed_at: mm.last_refreshed_at,
                memory_ids: [(mm)-[:BASED_ON]->(m:Memory) | m.id]}) AS models
