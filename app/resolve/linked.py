"""Items joined into parts by links: a union-find (pure, no I/O).

Shared by the namesake grouping (``company``: facts linked by likeness or by company) and the
settle's block split (``memory_bank``: entities linked by a name they share).
"""

from __future__ import annotations

from collections import defaultdict


class Linked:
    """Items 0..n-1 joined into parts by links (union-find, path halving)."""

    def __init__(self, n: int) -> None:
        self._parent = list(range(n))

    def _root(self, x: int) -> int:
        while self._parent[x] != x:
            self._parent[x] = self._parent[self._parent[x]]
            x = self._parent[x]
        return x

    def join(self, a: int, b: int) -> None:
        """Put ``a`` and ``b`` in one part."""
        self._parent[self._root(a)] = self._root(b)

    def parts(self) -> list[list[int]]:
        """Each part's items in ascending order."""
        by_root: defaultdict[int, list[int]] = defaultdict(list)
        for x in range(len(self._parent)):
            by_root[self._root(x)].append(x)
        return list(by_root.values())
