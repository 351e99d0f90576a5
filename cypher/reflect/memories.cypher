// The memories an answer cites, as based_on shows them, in the order asked. Ids of other
// banks, unknown ids and memories no longer valid are absent: a citation survives only here.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
WHERE m.state = 'valid'
RETURN collect({
  id: m.id, text: m.text, type: m.fact_type, context: m.context,
  occurred_start: m.occurred_start.epochMillis, occurred_end: m.occurred_end.epochMillis,
  mentioned_at: m.mentioned_at.epochMillis, document_id: m.document_id, chunk_id: m.chunk_id,
  tags: coalesce(m.tags, []), metadata_json: m.metadata_json
}) AS memories
