// Change facts' state (valid / invalidated) with the reason and time; the vector store must
// follow, so the facts are pending until it confirms.
// params: $bank_id, $memory_ids, $state, $reason, $at
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
SET m.state = $state, m.state_reason = $reason, m.state_changed_at = $at,
    m.vector_pending = true
RETURN m.id AS id
