// What waits on a bank, counted from indexes: facts waiting for consolidation and those that
// failed it (retried later), its observations (on the Observation label's (bank_id) index, so
// facts are never read), and its unfinished and failed operations.
// params: $bank_id
// mode: read
RETURN COUNT { MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'pending'}) } AS pending,
       COUNT { MATCH (m:Memory {bank_id: $bank_id, consolidation_state: 'failed'}) } AS failed,
       COUNT { MATCH (m:Observation {bank_id: $bank_id}) } AS observations,
       COUNT { MATCH (o:Operation {bank_id: $bank_id})
               WHERE o.status IN ['pending', 'processing'] } AS operations_pending,
       COUNT { MATCH (o:Operation {bank_id: $bank_id, status: 'failed'}) } AS operations_failed
