"""A loopback webhook receiver whose answers a test scripts: fail, time out, recover, hold."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import msgspec


class Received(msgspec.Struct, frozen=True):
    """One request the receiver got."""

    path: str
    headers: dict[str, str]
    body: bytes
    at: float


class Receiver:
    """Answers each request with the next scripted step; ``200`` once the script runs out.

    A step is an HTTP status, ``("sleep", seconds)`` to answer 200 only after that long (a
    timeout for a shorter client deadline), or ``("hold", None)`` to wait until ``release()``.
    """

    def __init__(self, script: list[object]) -> None:
        self.script = list(script)
        self.received: list[Received] = []
        self.released = threading.Event()
        self.url = ""
        self._lock = threading.Lock()

    def next_step(self) -> object:
        with self._lock:
            return self.script.pop(0) if self.script else 200

    def release(self) -> None:
        self.released.set()

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return list(self.received)


@contextmanager
def receiver(script: list[object] | None = None) -> Iterator[Receiver]:
    """A receiver on a free loopback port, stopped on exit."""
    state = Receiver(script or [])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            state.received.append(
                Received(self.path, dict(self.headers.items()), body, time.monotonic())
            )
            step = state.next_step()
            status = 200
            if isinstance(step, tuple) and step[0] == "sleep":
                time.sleep(float(step[1]))
            elif isinstance(step, tuple) and step[0] == "hold":
                state.released.wait(30)
            elif isinstance(step, int):
                status = step
            try:
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok" if status < 300 else b"receiver says no")
            except OSError:  # the sender gave up waiting
                pass

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release()
        server.shutdown()
        server.server_close()
