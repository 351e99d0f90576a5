// Remove the SEMANTIC links that start at these facts, before a repair writes them again
// (a crashed retain may or may not have written them; links to these facts stay).
// params: $bank_id, $memory_ids
// mode: write
UNWIND $memory_ids AS id
MATCH (:Memory {bank_id: $bank_id, id: id})-[r:SEMANTIC]->(:Memory)
DELETE r
