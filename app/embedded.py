"""Serve the API from a background thread of the current process (benchmarks, tests, scripts)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import msgspec
import uvicorn

from app.config import Settings
from app.main import create_app


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_in_thread(settings: Settings, *, startup_timeout: float = 120.0) -> Iterator[str]:
    """Serve ``create_app(settings)`` over real HTTP on loopback; yields the base URL."""
    port = free_port()
    # The settings say where the service answers (the data folder's lock records it).
    settings = msgspec.structs.replace(settings, host="127.0.0.1", port=port)
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"mnemo-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server stopped during start-up (see the log above)")
        if time.monotonic() > deadline:
            raise TimeoutError("the server did not start in time")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)
