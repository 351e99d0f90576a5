"""Extraction: chunks of text become facts with their entities and times.

- ``port``: the one interface the pipeline calls (``Extractor``) and its adapters (a worker
  thread, a worker process, concurrent LLM calls);
- ``extracted``: what every extractor returns;
- ``local``: the offline extractors (``local``: sentences, spaCy entities, rule-based dates;
  ``chunks``: each chunk one fact) and ``worker``, the process that runs ``local``;
- ``llm``, ``llm_prompt``, ``llm_schema``: the LLM modes (the client is ``app.store.llm``).
"""
