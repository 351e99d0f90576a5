"""Tagging facts for the offline claim reading: spaCy's tagger and lemmatizer, loaded lazily.

Offline consolidation reads a fact's claim (``app.consolidate.claims``) only when the fact has a
close neighbour that could be a restatement, so most facts are never tagged. The model (the
bank's ``MNEMO_SPACY_MODEL``, the one local extraction uses) is loaded at the first use, without
the parser and the named-entity recogniser (entities come from the fact's resolved mentions),
and tagging runs in a worker thread. Results are cached by text: a fact is compared again each
time a neighbour of it arrives.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from app.consolidate.claims import Token
from app.errors import Unavailable

# The parser, its sentence splitter and the recogniser: a claim needs tags and lemmas only.
_EXCLUDED_PIPES = ("parser", "senter", "ner", "textcat", "textcat_multilabel")
CACHE_TEXTS = 50_000


class Tagger:
    """Tokens with lemma and part of speech for texts, from a spaCy model loaded on first use."""

    def __init__(self, model: str, *, cache_texts: int = CACHE_TEXTS) -> None:
        self._model = model
        self._nlp: Any = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, tuple[Token, ...]] = OrderedDict()
        self._cache_texts = cache_texts

    async def tag(self, texts: Sequence[str]) -> list[tuple[Token, ...]]:
        """The tokens of each text, in order (cached texts cost nothing)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            await asyncio.to_thread(self._tag_sync, missing)
        return [self._cached(t) for t in texts]

    def _cached(self, text: str) -> tuple[Token, ...]:
        found = self._cache.get(text)
        if found is None:  # evicted while tagging a very large batch: tag it again
            self._tag_sync([text])
            found = self._cache[text]
        self._cache.move_to_end(text)
        return found

    def _tag_sync(self, texts: Sequence[str]) -> None:
        with self._lock:
            nlp = self._load()
            for text, doc in zip(texts, nlp.pipe(texts, batch_size=64), strict=True):
                self._cache[text] = tuple(
                    Token(t.text, t.lemma_ or t.text, t.pos_, t.tag_, t.idx) for t in doc
                )
            while len(self._cache) > self._cache_texts:
                self._cache.popitem(last=False)

    def _load(self) -> Any:
        if self._nlp is None:
            import spacy  # imported here: importing spaCy alone takes a noticeable time

            try:
                self._nlp = spacy.load(self._model, exclude=list(_EXCLUDED_PIPES))
            except OSError as exc:
                raise Unavailable(
                    f"spaCy model {self._model!r} is not installed (MNEMO_SPACY_MODEL); "
                    "offline consolidation reads claims with it"
                ) from exc
        return self._nlp
