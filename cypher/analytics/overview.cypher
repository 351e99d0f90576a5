// Bank overview: how much a bank holds, one row per (section, key) — facts by type/state
// ("world/valid"), entities by type, names, documents with and without facts, links by type
// (fact links, MENTIONS, CO_OCCURS; archived links of invalidated facts as "X (archived)"),
// reviews by status, entity merges by kind/state.
// params: $bank_id
// mode: read
CALL () {
  MATCH (m:Memory {bank_id: $bank_id})
  RETURN 'facts' AS section, coalesce(m.fact_type, '?') + '/' + coalesce(m.state, '?') AS key,
         count(*) AS count
  UNION ALL
  MATCH (e:Entity {bank_id: $bank_id})
  RETURN 'entities' AS section, coalesce(e.type, 'untyped') AS key, count(*) AS count
  UNION ALL
  MATCH (n:Name {bank_id: $bank_id})
  RETURN 'names' AS section, 'total' AS key, count(n) AS count
  UNION ALL
  MATCH (d:Document {bank_id: $bank_id})
  RETURN 'documents' AS section,
         CASE WHEN EXISTS { MATCH (:Memory {bank_id: $bank_id, document_id: d.id}) }
              THEN 'with facts' ELSE 'without facts' END AS key,
         count(*) AS count
  UNION ALL
  MATCH (:Memory {bank_id: $bank_id})-[r]->()
  WHERE NOT type(r) IN ['FROM', 'HAS_REVISION']
  RETURN 'links' AS section,
         CASE type(r) WHEN 'ARCHIVED_LINK' THEN r.type + ' (archived)' ELSE type(r) END AS key,
         count(*) AS count
  UNION ALL
  MATCH (:Entity {bank_id: $bank_id})-[r:CO_OCCURS]->()
  RETURN 'links' AS section, 'CO_OCCURS' AS key, count(r) AS count
  UNION ALL
  MATCH (r:Review {bank_id: $bank_id})
  RETURN 'reviews' AS section, r.status AS key, count(*) AS count
  UNION ALL
  MATCH (x:EntityMerge {bank_id: $bank_id})
  RETURN 'merges' AS section, x.kind + '/' + x.state AS key, count(*) AS count
}
WITH section, key, count WHERE count > 0
RETURN section, key, count
ORDER BY section, key
