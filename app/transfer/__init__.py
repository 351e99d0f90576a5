"""Export a bank to JSONL, and import JSONL into a bank: plain retain items, or an export.

Everything goes through the HTTP API (:class:`app.client.MnemoClient`), so it works against any
running Mnemo and needs nothing the API does not show.

**Plain import.** One retain item per line (``{"content": ..., "timestamp"?, "context"?,
"document_id"?, "metadata"?, "tags"?, "entities"?, "resolve_entities"?}``), retained in batches.
A batch the server refuses is retried item by item, so one bad line fails alone and is reported
with its line number; lines that are not valid items are reported without being sent.

**Export format** (version 1). One JSON object per line, each with a ``kind``:

* ``bank`` (first line): ``format: "mnemo-export"``, ``version``, ``exported_at``, the source
  bank ``id``, its ``config`` (name, description, retain mission, extraction mode, custom
  instructions, entity labels: the body of ``PUT /banks/{id}``) and its ``counts``.
* ``document``, oldest first: ``item`` is the retain item that reproduces it: ``content`` (the
  original text), ``document_id``, ``timestamp`` (the item's, or the time its facts were
  mentioned at), ``context``, ``metadata``, ``tags``, and ``entities``/``resolve_entities``
  when the API shows them; ``created_at``.
* ``memory``, oldest first: ``id``, ``document_id``, ``text``, ``extracted_text`` (the text
  before a curator edited it; absent when unedited), ``type``, ``fact_kind``, ``context``,
  ``occurred_start``/``occurred_end``/``mentioned_at``, ``metadata``, ``tags``, ``state`` with
  ``state_reason``/``state_changed_at``, ``edited_at``, and ``entities``:
  ``[{entity_id, name, type, mention}]`` (``mention`` is the text the fact used).
* ``entity``: ``id``, canonical ``name``, ``type``, ``is_label``, ``mention_count`` and ``names``
  (every name it was called: ``{name, source, stated, surfaces}``). Which mentions are one entity
  is the set of ``memory.entities`` sharing an ``entity_id``.
* ``review``: ``id``, ``status`` (open / same / different), ``entity_a``/``entity_b`` (ids of
  entities as they are now, merged-away sides followed), ``reason``, ``decided_by``,
  ``decision_reason``, ``decided_at``.
* ``merge``: ``record``, an audit record of a merge, split or revert (as ``GET
  .../entity-merges`` shows it), oldest first; kept for the record.
* ``mental_model``: ``id``, ``name``, ``source_query``, ``tags``, ``max_tokens``, ``trigger``,
  and, for the record, the exported page ``content`` and ``created_at``.

**Importing an export** into a fresh (or empty) bank gives the same memories and identities:

1. the bank is created with the exported configuration;
2. the documents are retained, oldest first, with their ids, timestamps and item fields (so
   extraction gives the same facts, with the same dates, tags and metadata);
3. each exported memory is matched to a new one by document id and text (its extracted text when
   it was edited; duplicates in order); a match whose fields or mentions differ (a curator's edit,
   caller entities the API did not export) is PATCHed to the exported text, context, dates, type
   and entities;
4. identities are made equal: a new entity holding mentions of several exported entities is
   split (the majority, or the one of the same name, stays), then new entities holding mentions
   of one exported entity are merged into the one named like it; each repair is audited with the
   reason ``mnemo import``;
5. memories invalidated in the export are invalidated with their reason;
6. "different" review decisions are replayed on the new bank's review of the same pair.
7. mental models are created again with their ids and settings; each page is written anew
   from the imported memories (its evidence ids are the new bank's), so history starts over.

What cannot be reproduced is reported, never silently dropped: memories of earlier versions of a
document (retired chunks), observations, and reviews the new bank never filed. Merge, split and
revert records are not replayed one by one: step 4 reproduces their outcome.
"""

from app.transfer.export import export_bank
from app.transfer.format import DEFAULT_BATCH_SIZE, ImportRefused, ImportReport
from app.transfer.importer import import_lines

__all__ = ["DEFAULT_BATCH_SIZE", "ImportRefused", "ImportReport", "export_bank", "import_lines"]
