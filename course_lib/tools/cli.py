"""``course-lab``: the workbook's command line (practice, check, solution, grade, inspect).

Each subcommand lives in its own module and registers itself here. Any
``CourseError`` becomes one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from ..base.errors import CourseError

__all__ = ["build_parser", "main"]

# Modules that each provide ``register(subparsers)``, in the order ``--help`` lists them.
_COMMAND_MODULES: tuple[str, ...] = (
    "course_lib.tools.track_commands",
    "course_lib.tools.inspect_session",
)

_EPILOG = """examples:
  course-lab practice 11              create practice/ch11 with the starters
  course-lab check 11.1 --impl practice/ch11
  course-lab check 11                 every lab against the reference
  course-lab grade submissions/       check a class's submissions, write a gradebook
  course-lab inspect data/pi-sessions/large-session.v1.jsonl
"""


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="course-lab",
        description="Chapter 11 workbook: practise the labs, check and grade them, inspect sessions.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _COMMAND_MODULES:
        try:
            module = import_module(name)
        except ModuleNotFoundError as missing:
            # The rules install alone; the commands need the track extra.
            raise SystemExit(
                f"course-lab: error: the {missing.name!r} package is missing; the commands need "
                "the track extra: pip install 'course-lib[track]'"
            ) from None
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``course-lab``; returns the exit status (0 ok, 1 checks failed, 2 bad input).

    A reader that stops early (``course-lab check 11 | head``) or a full disk
    behind stdout (``inspect FILE > /dev/full``) ends the command quietly with
    status 1 and one line on stderr, never a traceback.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = int(args.func(args))
        sys.stdout.flush()
        return status
    except CourseError as error:
        print(f"course-lab: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        _silence_stdout()  # the reader is gone: nothing more can be said on stdout
        return 1
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        _silence_stdout()
        print("course-lab: error: stdout: no space left on the device", file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass
    finally:
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
