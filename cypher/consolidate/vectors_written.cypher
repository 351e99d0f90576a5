// The vector store holds these observations' vectors and states: they stop being pending, and
// remember the text their vector was computed from (a later write with the same text reuses
// it). An observation whose text or state changed meanwhile stays pending.
// params: $bank_id, $observations [{id, text, state}]
// mode: write
UNWIND $observations AS obs
MATCH (o:Observation {bank_id: $bank_id, id: obs.id})
WHERE o.text = obs.text AND o.state = obs.state
SET o.vector_pending = false, o.vector_text = obs.text
RETURN count(o) AS cleared
