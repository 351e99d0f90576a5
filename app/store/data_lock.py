"""One owner of a data folder: an exclusive lock that a second process cannot take.

The embedded Qdrant Edge shard under the data folder is a library's files, not a server: two
processes writing it corrupt the live one's view of it. The service (and any one-shot command
that opens the stores) holds ``<data_dir>/mnemo.lock`` while it runs; the file also says who
holds it (pid, command, the URL it serves), so that ``mnemo reconcile`` can ask that service
instead. The lock is the kernel's (``flock``), so it is released when the holder dies, even by
SIGKILL.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from app.errors import Unavailable

LOCK_NAME = "mnemo.lock"


class DataFolderInUse(Unavailable):
    """Another process owns the data folder."""

    def __init__(self, path: Path, owner: dict[str, Any]) -> None:
        who = f"pid {owner.get('pid', '?')}"
        if owner.get("url"):
            who += f", serving {owner['url']}"
        super().__init__(
            f"the data folder {path} is in use by another Mnemo process ({who}); stop it, or "
            "give this one its own MNEMO_DATA_DIR",
            extra={"owner": owner},
        )
        self.owner = owner


class DataFolderLock:
    """The held lock; :meth:`release` (or process exit) lets the next owner in."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, data_dir: Path, **owner: object) -> DataFolderLock:
        """Take the lock of ``data_dir`` or raise :class:`DataFolderInUse` at once."""
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DataFolderInUse(data_dir, read_owner(data_dir)) from None
        record = {"pid": os.getpid(), "since": datetime.now(UTC).isoformat(), **owner}
        os.ftruncate(fd, 0)
        os.pwrite(fd, msgspec.json.encode(record), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Give the folder up (idempotent)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing the last descriptor releases the flock
        self._fd = None


def read_owner(data_dir: Path) -> dict[str, Any]:
    """What the holder wrote about itself (empty when unreadable)."""
    try:
        owner = msgspec.json.decode((data_dir / LOCK_NAME).read_bytes())
    except (OSError, msgspec.DecodeError):
        return {}
    return owner if isinstance(owner, dict) else {}
