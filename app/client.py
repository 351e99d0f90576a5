"""A small typed client for Mnemo's HTTP API (used by the CLI, the benchmarks and the tests).

Answers decode into the same msgspec Structs the server encodes; an error answer raises
``ApiError`` with the server's status code, detail and extra.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import httpx
import msgspec

from app.curate.banks import Bank, BankDeleted, BankPage, BankUpdate
from app.retain.items import RetainItem, RetainRequest, RetainResponse
from app.retain.operations import Operation, OperationPage

T = TypeVar("T")
BANKS = "/v1/default/banks"


class ApiError(Exception):
    """The API answered with an error status."""

    def __init__(self, status_code: int, detail: str, extra: Any = None) -> None:
        super().__init__(f"{status_code}: {detail}")
        self.status_code = status_code
        self.detail = detail
        self.extra = extra


class MnemoClient:
    """Synchronous client; use as a context manager or call ``close()``."""

    def __init__(self, base_url: str, *, timeout: float = 300.0) -> None:
        self._http = httpx.Client(base_url=base_url, timeout=timeout)

    def __enter__(self) -> MnemoClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    # -- plumbing -----------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        body: object = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """Send a request and return the decoded JSON answer (raises ApiError on 4xx/5xx)."""
        content = None if body is None else msgspec.json.encode(body)
        response = self._http.request(
            method,
            path,
            content=content,
            params={k: v for k, v in (params or {}).items() if v is not None},
            headers={"content-type": "application/json"} if content is not None else None,
        )
        if response.status_code >= 400:
            try:
                error = response.json()
            except ValueError:
                error = {"detail": response.text}
            raise ApiError(response.status_code, str(error.get("detail")), error.get("extra"))
        if not response.content:
            return None
        return msgspec.json.decode(response.content)

    def call(
        self,
        into: type[T],
        method: str,
        path: str,
        *,
        body: object = None,
        params: Mapping[str, Any] | None = None,
    ) -> T:
        """``request`` and convert the answer into ``into``."""
        return msgspec.convert(self.request(method, path, body=body, params=params), into)

    # -- service ------------------------------------------------------------------------------

    def ready(self) -> bool:
        """True when the service and its dependencies answer."""
        try:
            self.request("GET", "/health/ready")
        except (ApiError, httpx.TransportError):
            return False
        return True

    # -- banks --------------------------------------------------------------------------------

    def put_bank(self, bank_id: str, update: BankUpdate | None = None) -> Bank:
        """Create a bank or update the fields set in ``update``."""
        return self.call(Bank, "PUT", f"{BANKS}/{bank_id}", body=update or BankUpdate())

    def get_bank(self, bank_id: str) -> Bank:
        """One bank with counts."""
        return self.call(Bank, "GET", f"{BANKS}/{bank_id}")

    def list_banks(self, *, limit: int = 100, offset: int = 0) -> BankPage:
        """A page of banks."""
        return self.call(BankPage, "GET", BANKS, params={"limit": limit, "offset": offset})

    def delete_bank(self, bank_id: str) -> BankDeleted:
        """Delete a bank and all it holds."""
        return self.call(BankDeleted, "DELETE", f"{BANKS}/{bank_id}")

    # -- retain -------------------------------------------------------------------------------

    def retain(
        self, bank_id: str, items: Sequence[RetainItem], *, run_async: bool = False
    ) -> RetainResponse:
        """Retain items (``run_async``: answer at once with an operation id)."""
        request = RetainRequest(items=list(items), async_=run_async)
        return self.call(RetainResponse, "POST", f"{BANKS}/{bank_id}/memories", body=request)

    def operation(self, bank_id: str, operation_id: str) -> Operation:
        """Status of an async operation."""
        return self.call(Operation, "GET", f"{BANKS}/{bank_id}/operations/{operation_id}")

    def operations(self, bank_id: str, *, limit: int = 100, offset: int = 0) -> OperationPage:
        """A bank's operations, newest first."""
        return self.call(
            OperationPage,
            "GET",
            f"{BANKS}/{bank_id}/operations",
            params={"limit": limit, "offset": offset},
        )

    # -- memories -----------------------------------------------------------------------------

    def get_memory(self, bank_id: str, memory_id: str) -> dict[str, Any]:
        """One memory with its entities ``[{id, name, mention}]``."""
        answer: dict[str, Any] = self.request("GET", f"{BANKS}/{bank_id}/memories/{memory_id}")
        return answer
