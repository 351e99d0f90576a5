"""Rules every feature shares, defined once.

Bank configuration, facts and their lifecycle, tags, dates, names and alias words.
The domain imports no feature and no store: features and the store depend on it, never the
other way round (``tests/unit/test_architecture.py`` keeps it so). Where a rule has to run
statements (a fact leaving the active graph), it does so through the small
:class:`~app.domain.statements.Statements` protocol that the store's transaction satisfies.
"""
