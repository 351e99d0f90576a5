// What a bank holds, by kind: memories by fact type, memory-to-memory links by type and by the
// source memory's fact type, documents, entities, operations by status, the last memory write
// and the last consolidation. Consolidation still to come counts the facts waiting for it and
// the done facts whose observation the vector store has not confirmed yet: until it has, recall
// cannot find that observation by vector or keyword, so "nothing pending" means searchable.
// params: $bank_id
// mode: read
CALL () {
  MATCH (m:Memory {bank_id: $bank_id})
  WITH m.fact_type AS fact_type, count(*) AS n, max(m.created_at) AS last_at,
       max(m.consolidated_at) AS consolidated_at
  RETURN collect({fact_type: fact_type, n: n}) AS nodes, max(last_at) AS last_memory_write_at,
         max(consolidated_at) AS last_consolidated_at
}
CALL () {
  MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'pending'})
  USING INDEX m:Memory(bank_id, consolidation_state, created_at)
  WHERE m.created_at IS NOT NULL
  RETURN count(m) AS queued
}
CALL () {
  MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'failed'})
  USING INDEX m:Memory(bank_id, consolidation_state, created_at)
  WHERE m.created_at IS NOT NULL
  RETURN count(m) AS failed_consolidation
}
CALL () {
  MATCH (o:Observation {bank_id: $bank_id})-[:DERIVED_FROM]->(s:Memory)
  WHERE o.vector_pending = true AND s.consolidation_state <> 'pending'
  RETURN count(DISTINCT s) AS unpublished
}
CALL () {
  MATCH (m:Memory {bank_id: $bank_id})-[r:TEMPORAL|SEMANTIC|CAUSED_BY]->(:Memory)
  WITH toLower(type(r)) AS link_type, m.fact_type AS fact_type, count(*) AS n
  RETURN collect({link_type: link_type, fact_type: fact_type, n: n}) AS links
}
CALL () {
  MATCH (o:Operation {bank_id: $bank_id})
  WITH o.status AS status, count(*) AS n
  RETURN collect({status: status, n: n}) AS operations
}
RETURN nodes, links, operations, last_memory_write_at, last_consolidated_at,
       queued + unpublished AS pending_consolidation, failed_consolidation,
       COUNT { MATCH (d:Document {bank_id: $bank_id}) } AS total_documents,
       COUNT { MATCH (e:Entity {bank_id: $bank_id}) } AS total_entities
