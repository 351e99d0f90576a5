"""Observations: facts consolidated into evidence-backed conclusions, taken back when evidence goes.

After retain, every new fact waits (``consolidation_state: pending``) for the consolidation
worker (``worker``), which takes a bank's facts in order, in batches, under a lease in Neo4j. For
each fact it gathers candidates (vector neighbours among the bank's facts and observations, and
observations sharing its entities) and decides: offline (``offline``: restatements of one claim,
from two or more facts, become one observation) or with an LLM (``llm``). ``invariants`` holds
what no decision can change (sources are a union, proof counts are computed, time ranges only
widen, every rewrite is a revision, nothing outside the candidates is cited); ``service`` writes
a batch in one transaction and publishes the observations' vectors. The cascade that takes a
source fact out of its observations lives with the fact lifecycle (``app.domain.lifecycle``).
"""
