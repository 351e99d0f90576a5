// Facts as the API shows them, in the order asked, with the entities they mention (canonical
// name and surface text; for an invalidated fact, the mentions it had, kept archived) and, for
// an observation, the ids of its valid sources. Ids of other banks or unknown ids are absent.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
CALL (m) {
  OPTIONAL MATCH (m)-[r:MENTIONS|ARCHIVED_LINK]->(e:Entity)
  WHERE type(r) = 'MENTIONS' OR r.type = 'MENTIONS'
  WITH e, r ORDER BY e.canonical_name, e.id
  RETURN collect(CASE WHEN e IS NULL THEN null
                 ELSE {id: e.id, name: e.canonical_name, mention: r.mention, type: e.type} END)
         AS entities
}
RETURN m {.id, .text, .context, .fact_type, .fact_kind, .occurred_start, .occurred_end,
          .mentioned_at, .document_id, .chunk_id, .metadata_json, .tags, .state, .state_reason,
          .state_changed_at, .proof_count, .edited_at, .created_at, .updated_at, .vector_pending,
          .consolidation_state, .consolidated_at, .consolidation_failed_at,
          .consolidation_error} AS memory,
       entities,
       CASE WHEN m:Observation
            THEN [(m)-[:DERIVED_FROM]->(s:Memory) WHERE s.state = 'valid' | s.id]
            END AS source_ids
