"""The read path: channels, fusion, boosts, token budget and trace for recall.

The modules here that carry no I/O are pure functions over plain data, so every number a recall
returns can be recomputed by hand:

- ``candidates``: what a channel returns (``ChannelResult`` of ranked ``Candidate``) and what
  fusion returns (``FusedResult``); ``ranked()`` turns ``(id, score)`` pairs into ranks.
- ``recipes``: named, frozen configurations (``LOW``, ``MID``, ``HIGH``) that set channel depth,
  fusion and boost parameters; per-request variants via ``msgspec.structs.replace``.
- ``fusion``: Reciprocal Rank Fusion over the channels.
- ``boosts``: small, bounded recency / temporal-proximity / evidence boosts after fusion.
- ``budget``: keep the best results that fit ``max_tokens`` (documented token estimate).
- ``graph_scoring``: how the graph and temporal channels score what they reach.
- ``trace``: what ``trace: true`` returns.

Order of a recall: channels (concurrently) → ``rrf`` → optional rerank → ``apply_boosts`` →
``fill_budget``.
"""
