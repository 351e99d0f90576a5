// What a consolidation batch relied on, read again inside its write: a node that changed since
// (edited, invalidated, deleted, rewritten) makes the batch start over. Times as epoch
// milliseconds, as consolidate/nodes read them.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
RETURN collect({id: m.id, text: m.text, state: m.state, edited_at: m.edited_at.epochMillis,
                updated_at: m.updated_at.epochMillis}) AS nodes
