// Delete every node of a bank (and their relationships) in batches; nothing of other banks.
// Must run in an implicit transaction (CALL ... IN TRANSACTIONS).
// Every bank-scoped label must be listed here. ApiKey nodes are global and never listed.
// params: $bank_id
// mode: write
CALL (*) {
  MATCH (n:Document {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:Chunk {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:Memory {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:MemoryRevision {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:Entity {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:MergedEntity {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:Name {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:Operation {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:Review {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:EntityMerge {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:MentalModel {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:MentalModelVersion {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:ConsolidationLease {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:SecurityEvent {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:Webhook {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:WebhookDelivery {bank_id: $bank_id}) RETURN n
  UNION ALL MATCH (n:Bank {id: $bank_id}) RETURN n
}
CALL (n) { DETACH DELETE n RETURN 1 AS deleted } IN TRANSACTIONS OF 2000 ROWS
RETURN count(deleted) AS nodes
