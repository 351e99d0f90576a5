// Keep what memory defense found: where and by which detector, never the matched text.
// params: $bank_id, $events [{id, at, source, action, detector, label, category, severity,
//   index, field, count, document_id, memory_id}]
// mode: write
UNWIND $events AS e
CREATE (s:SecurityEvent)
SET s = e, s.bank_id = $bank_id, s.at = datetime(e.at)
RETURN count(s) AS recorded
