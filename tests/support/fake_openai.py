"""A real loopback HTTP server speaking OpenAI's chat-completions protocol, with scripted answers.

Tests of LLM extraction run the real ``openai`` SDK and instructor against it, so that timeouts,
HTTP errors, retries and JSON repair are exercised over an actual socket rather than a mock.

Usage::

    server.script(reply_json({"facts": [...]}), reply_text("{broken"), http_error(500))
    server.script(reply_tool_calls(("recall", {"query": "x"})), reply_text("final answer"))
    server.always(reply_text("never JSON"))   # answer used once the script runs out
    ...
    server.requests[0].system_prompt          # what the client sent

Each request takes the next scripted answer; when the script is empty the ``always`` answer is
used, and without one the server answers 500 ("no scripted answer left") so a test that makes
more calls than it planned fails loudly.

As a pytest fixture: ``fake_openai`` (one fresh server per test). Register this module as a
plugin with ``pytest_plugins = ["tests.support.fake_openai"]`` in ``tests/conftest.py``.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True, kw_only=True)
class Scripted:
    """One scripted answer.

    ``content`` is the assistant's text (or the tool-call arguments when the request forced a
    tool, as instructor's TOOLS mode does); ``tool_calls`` are ``(name, arguments text)`` pairs
    the assistant asks for, as an agent loop expects them; ``status`` other than 200 sends an
    OpenAI-style error body instead; ``delay_s`` sleeps before answering (longer than the
    client's timeout makes a timeout).
    """

    content: str | None = None
    tool_calls: tuple[tuple[str, str], ...] = ()
    status: int = 200
    delay_s: float = 0.0
    prompt_tokens: int = 100
    completion_tokens: int = 50
    finish_reason: str = "stop"


def reply_json(payload: Any, *, fenced: bool = False, **kwargs: Any) -> Scripted:
    """A well-formed JSON answer (optionally inside a ```json fence, as chat models often do)."""
    text = json.dumps(payload, ensure_ascii=False)
    if fenced:
        text = f"```json\n{text}\n```"
    return Scripted(content=text, **kwargs)


def reply_text(text: str, **kwargs: Any) -> Scripted:
    """A raw text answer: broken JSON, prose, whatever a weak model might say."""
    return Scripted(content=text, **kwargs)


def reply_tool_calls(*calls: tuple[str, Any], content: str | None = None) -> Scripted:
    """An assistant turn that calls tools: ``(name, arguments)`` pairs, where arguments are a
    dict (sent as JSON) or a string (sent as is, e.g. broken JSON)."""
    return Scripted(
        content=content,
        tool_calls=tuple(
            (name, args if isinstance(args, str) else json.dumps(args)) for name, args in calls
        ),
    )


def http_error(status: int = 500, **kwargs: Any) -> Scripted:
    """An HTTP error with OpenAI's error body."""
    return Scripted(status=status, **kwargs)


def slow(delay_s: float, then: Scripted | None = None) -> Scripted:
    """An answer that arrives after ``delay_s`` seconds (``then`` or an empty JSON object)."""
    base = then or Scripted(content="{}")
    return Scripted(
        content=base.content,
        tool_calls=base.tool_calls,
        status=base.status,
        delay_s=delay_s,
        prompt_tokens=base.prompt_tokens,
        completion_tokens=base.completion_tokens,
        finish_reason=base.finish_reason,
    )


@dataclass(frozen=True)
class RecordedRequest:
    """A request the server received: its path, headers (lower-case names) and JSON body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages of the request."""
        return list(self.body.get("messages", []))

    @property
    def system_prompt(self) -> str:
        """Text of every system message, joined."""
        return "\n".join(_text(m) for m in self.messages if m.get("role") == "system")

    @property
    def all_text(self) -> str:
        """Text of every message, joined (to assert that something was sent at all)."""
        return "\n".join(_text(m) for m in self.messages)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


@dataclass
class _State:
    script: deque[Scripted] = field(default_factory=deque)
    fallback: Scripted | None = None
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Set on shutdown so that a "slow" handler wakes up instead of holding the thread.
    stopping: threading.Event = field(default_factory=threading.Event)
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))


class FakeOpenAIServer:
    """Scripted OpenAI-compatible server on 127.0.0.1 and a random free port.

    Use as a context manager (or call ``start``/``stop``). ``base_url`` is what an OpenAI client
    takes (it ends in ``/v1``).
    """

    def __init__(self) -> None:
        self._state = _State()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        """Bind to a free loopback port and serve in a daemon thread."""
        handler = type("_BoundHandler", (_Handler,), {"state": self._state})
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        # Daemon request threads: a handler still sleeping for a "slow" answer must not keep
        # the test process alive or make server_close() wait.
        httpd.daemon_threads = True
        self._httpd = httpd
        # A short poll interval keeps shutdown() (once per test) from costing half a second.
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.02,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._state.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._httpd is None:
            raise RuntimeError("server not started")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """Base URL for an OpenAI client, e.g. ``http://127.0.0.1:43121/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting ---------------------------------------------------------------------------
    def script(self, *answers: Scripted) -> None:
        """Queue answers, used in order, one per request."""
        with self._state.lock:
            self._state.script.extend(answers)

    def always(self, answer: Scripted | None) -> None:
        """Answer used whenever the script is empty (None: answer 500)."""
        with self._state.lock:
            self._state.fallback = answer

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every chat-completions request received so far, in order."""
        with self._state.lock:
            return list(self._state.requests)

    @property
    def pending(self) -> int:
        """Scripted answers not used yet."""
        with self._state.lock:
            return len(self._state.script)


class _Handler(BaseHTTPRequestHandler):
    state: _State
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send(
                404, {"error": {"message": f"unknown path {self.path}", "type": "not_found"}}
            )
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request"}})
            return
        state = self.state
        with state.lock:
            state.requests.append(
                RecordedRequest(
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
            )
            answer = state.script.popleft() if state.script else state.fallback
            number = next(state.ids)
        if answer is None:
            answer = Scripted(status=500, content="no scripted answer left")
        if answer.delay_s > 0 and state.stopping.wait(answer.delay_s):
            return
        if answer.status != 200:
            message = answer.content or f"scripted HTTP {answer.status}"
            self._send(answer.status, {"error": {"message": message, "type": "server_error"}})
            return
        self._send(200, _completion(body, answer, number))

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (its timeout fired first): nothing left to answer.
            pass


def _completion(request: dict[str, Any], answer: Scripted, number: int) -> dict[str, Any]:
    """Build a ``chat.completion`` object; a tool call when scripted or when a tool was forced."""
    message: dict[str, Any] = {"role": "assistant", "content": answer.content}
    finish_reason = answer.finish_reason
    tool_name = _requested_tool(request)
    if answer.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{number}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
            for i, (name, arguments) in enumerate(answer.tool_calls)
        ]
        finish_reason = "tool_calls" if finish_reason == "stop" else finish_reason
    elif tool_name is not None:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{number}",
                    "type": "function",
                    "function": {"name": tool_name, "arguments": answer.content or ""},
                }
            ],
        }
        finish_reason = "tool_calls" if finish_reason == "stop" else finish_reason
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "fake-model"),
        "system_fingerprint": "fake",
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "total_tokens": answer.prompt_tokens + answer.completion_tokens,
        },
    }


def _requested_tool(request: dict[str, Any]) -> str | None:
    """Name of the tool the request forced (TOOLS mode); None when the model may choose."""
    tools = request.get("tools") or []
    choice = request.get("tool_choice")
    if not tools or choice in (None, "auto", "none"):
        return None
    if isinstance(choice, dict):
        name = choice.get("function", {}).get("name")
        if isinstance(name, str):
            return name
    first = tools[0].get("function", {}).get("name") if isinstance(tools[0], dict) else None
    return first if isinstance(first, str) else None


def unused_port() -> int:
    """A loopback port that nothing listens on (for connection-refused tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A fresh scripted OpenAI-compatible server for one test."""
    with FakeOpenAIServer() as server:
        yield server
