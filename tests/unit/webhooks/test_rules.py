"""Delivery rules: the signature a receiver checks, the retry schedule, what counts as done."""

from __future__ import annotations

import hashlib
import hmac

from app.webhooks.rules import backoff, is_success, sign


def test_signature_is_the_hmac_sha256_of_the_exact_body() -> None:
    body = b'{"type":"retain.completed"}'
    expected = hmac.new(b"k3y", body, hashlib.sha256).hexdigest()
    assert sign("k3y", body) == f"sha256={expected}"
    assert sign("k3y", body + b" ") != sign("k3y", body)
    assert sign("other", body) != sign("k3y", body)


def test_waits_double_and_stop_at_the_cap() -> None:
    assert [backoff(n, base_s=2.0, cap_s=10.0) for n in range(1, 6)] == [2, 4, 8, 10, 10]


def test_only_2xx_delivers() -> None:
    assert is_success(200) and is_success(204)
    assert not is_success(301) and not is_success(429) and not is_success(500)
