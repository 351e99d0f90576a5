"""Reflect and mental models: answers from one bank with their evidence, and standing answers.

- ``service``: ``ReflectService`` (``POST .../reflect``): the agent loop with an LLM
  (``agent``, ``tools``), the extractive answer offline (``extractive``); citations are kept only
  when a tool of the same call returned them (``citations``).
- ``mental_models``: ``MentalModelService`` (``.../mental-models``): pages of sections with
  stable ids (``sections``), refreshed in full or by delta operations, versions kept; and the
  hook consolidation calls after a run (``MentalModelService.after_consolidation``).
- ``schemas``: request and response Structs (Hindsight's field names), no I/O.
"""
