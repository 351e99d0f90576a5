// The entities each fact mentions (canonical name and surface text), active or archived, to
// rebuild the facts' keyword field after mentions moved between entities.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
RETURN m.id AS id,
       [(m)-[r:MENTIONS|ARCHIVED_LINK]->(e:Entity)
        WHERE type(r) = 'MENTIONS' OR r.type = 'MENTIONS' |
        {entity_id: e.id, canonical_name: e.canonical_name, mention: r.mention}] AS mentions
