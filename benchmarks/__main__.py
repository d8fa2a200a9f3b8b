"""Run every benchmark module (``bench_*.py``) in this package: ``python -m benchmarks``."""

from __future__ import annotations

import pkgutil
import sys
from importlib import import_module
from pathlib import Path


def main() -> int:
    """Import each ``bench_*`` module in name order and call its ``main()``."""
    names = sorted(
        info.name
        for info in pkgutil.iter_modules([str(Path(__file__).parent)])
        if info.name.startswith("bench_")
    )
    for name in names:
        status = import_module(f"benchmarks.{name}").main([])
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
