"""Stand-ins for files and disks, shared by the store tests of several layers."""

from __future__ import annotations

import errno
import io
from typing import Any

__all__ = ["PartialWriteIO"]


class PartialWriteIO(io.FileIO):
    """A file that writes half of what it is given, then fails as a full disk would."""

    def write(self, data: Any) -> int:
        data = bytes(data)
        if len(data) > 1:
            super().write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")
