"""Health, metrics, OpenAPI and error shapes over real HTTP."""

from __future__ import annotations

import httpx


def test_health_answers(http: httpx.Client) -> None:
    assert http.get("/health").json() == {"status": "ok"}


def test_ready_when_everything_is_up(http: httpx.Client) -> None:
    response = http.get("/health/ready")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "neo4j": "up",
        "vector_store": "up",
        "embedder": "up",
    }


def test_metrics_count_requests_in_prometheus_text(http: httpx.Client) -> None:
    http.get("/health")
    text = http.get("/metrics").text
    assert "mnemo_requests_total" in text
    assert 'path="/health"' in text
    assert "mnemo_request_duration_seconds" in text


def test_openapi_schema_and_docs_are_served(http: httpx.Client) -> None:
    schema = http.get("/schema/openapi.json").json()
    assert "/v1/default/banks/{bank_id}" in schema["paths"]
    assert http.get("/schema/swagger").status_code == 200


def test_unknown_route_and_method_use_the_error_shape(http: httpx.Client) -> None:
    missing = http.get("/v1/nowhere")
    assert missing.status_code == 404
    assert missing.json()["status_code"] == 404
    wrong = http.post("/health")
    assert wrong.status_code == 405
    assert wrong.json()["status_code"] == 405
