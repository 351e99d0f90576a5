// What a bank holds, by kind: memories by fact type, memory-to-memory links by type and by the
// source memory's fact type, documents, entities, operations by status, the last memory write.
// params: $bank_id
// mode: read
CALL () {
  MATCH (m:Memory {bank_id: $bank_id})
  WITH m.fact_type AS fact_type, count(*) AS n, max(m.created_at) AS last_at
  RETURN collect({fact_type: fact_type, n: n}) AS nodes, max(last_at) AS last_memory_write_at
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
RETURN nodes, links, operations, last_memory_write_at,
       COUNT { MATCH (d:Document {bank_id: $bank_id}) } AS total_documents,
       COUNT { MATCH (e:Entity {bank_id: $bank_id}) } AS total_entities
