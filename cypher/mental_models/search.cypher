// Every mental model of the bank that has a page, with the embedding of its question, for
// reflect to find the ones matching a query (a bank holds tens of them, not thousands).
// params: $bank_id
// mode: read
MATCH (mm:MentalModel {bank_id: $bank_id})
WHERE mm.content IS NOT NULL AND mm.content <> ''
RETURN collect({id: mm.id, name: mm.name, source_query: mm.source_query, content: mm.content,
                tags: coalesce(mm.tags, []), embedding: mm.embedding,
                last_refreshed_at: mm.last_refreshed_at}) AS models
