"""The web console at ``/console/``: people read a bank, correct it and settle identities.

Server-rendered pages (Jinja templates through Litestar) over the same feature services the
HTTP API uses; the few assets (a stylesheet, one small script) ship in this package, so the
console works offline and needs no build step.
"""

from app.console.router import console_router, template_config

__all__ = ["console_router", "template_config"]
