"""One domain error tree. Services raise these; app/api/errors.py maps them to HTTP once."""

from __future__ import annotations

from typing import Any


class MnemoError(Exception):
    """Base of every error Mnemo raises on purpose."""

    status_code = 500

    def __init__(self, detail: str, *, extra: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class InvalidInput(MnemoError):
    """The request is well-formed JSON but says something Mnemo cannot do."""

    status_code = 400


class NotFound(MnemoError):
    """The bank, memory, entity, document or operation does not exist (in this bank)."""

    status_code = 404


class Conflict(MnemoError):
    """The request contradicts the current state (e.g. reverting a merge twice)."""

    status_code = 409


class PayloadTooLarge(MnemoError):
    """A configured size limit was exceeded."""

    status_code = 413


class Blocked(MnemoError):
    """Memory defense refused the content (a secret or personal data the bank blocks)."""

    status_code = 422


class Unavailable(MnemoError):
    """A dependency (Neo4j, the vector store, the embedder, the LLM) is not usable now."""

    status_code = 503


class UpstreamError(MnemoError):
    """An external service (the LLM endpoint) answered with something unusable."""

    status_code = 502


class NotImplementedYet(MnemoError):
    """An operation Hindsight's API defines that Mnemo does not offer yet (reflect, ...)."""

    status_code = 501
