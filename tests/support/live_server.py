"""The real app over real HTTP in a background thread (see app/embedded.py)."""

from app.embedded import free_port
from app.embedded import serve_in_thread as live_server

__all__ = ["free_port", "live_server"]
