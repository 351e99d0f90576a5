"""Entity resolution: the pure decision core (no database, no I/O, no clock reads).

``normalise`` computes name keys and comparison forms; ``guards`` says when two names must never
merge; ``scoring`` holds the one policy and the signals; ``evidence`` scores one subject against
its candidates; ``decide.resolve_fact`` turns a fact's mentions and their index candidates into
decisions (merge / create / create and review); ``reconsider.reconsider`` re-evaluates earlier
"apart" decisions when an entity gains evidence; ``cluster`` groups surface variants of one new
name; ``aliases`` finds aliases a text states ("X (Y)", "X, also known as Y", "X（简称Y）").
See docs/decisions/0004-entity-resolution.md.
"""
