"""The judged side: a student's rules, answering the judge's calls and nothing else.

Started as ``python -P -m course_lib.judge.rule_server PACKAGE --in-fd N
--out-fd M`` (confined by the grader, or a plain child of ``course-lab
check``). It confines itself (``confinement``), imports the practice package
once, says which rules it holds, then answers one call per frame: it rebuilds
the arguments (``codec``), calls the rule, and sends back the answer, the
arguments again if the rule changed them, or the error it raised. The judge
decides what any of it is worth; this process never sees a check, a hidden
case, the reference or the seed.

What the package prints goes nowhere: standard output and error are
``/dev/null``, so nothing written there can pass for an answer.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .codec import Codec, given_types
from .confinement import ImportTimeout, add_confinement_options, alarm, confine, limit_of
from .frames import FrameError, read_frame, write_frame

__all__ = ["ERROR_HOMES", "error_kind"]

ERROR_HOMES = ("course_lib.base.errors", "course_lib.chapter.labs", "builtins")
"""Modules whose error classes the judge can raise again by name."""


def error_kind(error: BaseException) -> str:
    """The nearest class of ``error`` the judge knows: a course error, ``LabNotImplemented``, a builtin."""
    for kind in type(error).__mro__:
        if kind.__module__ in ERROR_HOMES:
            return kind.__name__
    return "Exception"


def _error(error: BaseException) -> dict[str, Any]:
    try:
        message = str(error)
    except BaseException:  # a __str__ that raises: the class name is all there is
        message = ""
    number = getattr(error, "errno", None) if isinstance(error, OSError) else None
    return {
        "error": {
            "kind": error_kind(error),
            "type": type(error).__name__[:100],
            "message": message[:4000],
            "errno": number if type(number) is int else None,
        }
    }


def _load(package: Path | None, rules: Sequence[str], seconds: float) -> ModuleType:
    """Import the practice package once; a clear ``PracticePackageError`` when it cannot be.

    Without a package, the rules are the reference's (``course_lib``): the
    project's own tests judge the reference through the same channel.
    """
    from course_lib.judge.practice import check_practice_package, load_practice_package

    if package is None:
        import course_lib

        return course_lib
    with alarm(seconds):
        check_practice_package(package, required=rules)
        return load_practice_package(package)


def _answer(package: ModuleType, rules: frozenset[str], request: Any) -> dict[str, Any]:
    """One call: rebuild the arguments, call the rule, encode what came back."""
    if type(request) is not dict or request.get("call") not in rules:
        return {"refused": f"not a call of this package's rules: {str(request)[:200]}"}
    codec = Codec(given_types())
    sent = request.get("value")
    args, kwargs = codec.decode(sent)
    try:
        result = getattr(package, request["call"])(*args, **kwargs)
    except BaseException as error:  # the student's code may raise anything, exits included
        reply = _error(error)
    else:
        reply = {"value": codec.encode(result)}
    after = Codec(codec.types).encode((args, kwargs))
    if after != sent:  # the rule changed its input: the judge's copy changes the same way
        reply["after"] = after
    return reply


def serve(package: ModuleType, rules: frozenset[str], source: int, sink: int) -> None:
    """Answer frames until the judge closes the channel."""
    while True:
        try:
            request = read_frame(source)
        except FrameError:
            return
        try:
            reply = _answer(package, rules, request)
        except BaseException as error:  # the answer could not be encoded
            reply = {"unsendable": f"{type(error).__name__}: {str(error)[:300]}"}
        if type(request) is dict:
            reply["ticket"] = request.get("ticket")  # which call this answers
        write_frame(sink, reply)


def _silence_output() -> None:
    """Standard input, output and error to ``/dev/null``: the channel is the only way out."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_lib.judge.rule_server")
    parser.add_argument("package", type=Path, nargs="?", help="none: the reference's rules")
    parser.add_argument("--rules", required=True, help="the rule names, comma-separated")
    parser.add_argument("--in-fd", type=int, required=True)
    parser.add_argument("--out-fd", type=int, required=True)
    add_confinement_options(parser)
    args = parser.parse_args(argv)
    confine(args, args.package or Path("reference"))
    _silence_output()
    rules = frozenset(args.rules.split(","))
    from course_lib.judge.practice import PracticePackageError

    where = args.package or "course_lib"
    try:
        package = _load(args.package, sorted(rules), args.timeout)
    except ImportTimeout:
        why = (
            f"{where}: importing the package did not finish within {args.timeout:g} s; "
            "look for an endless loop at module level"
        )
        ready: dict[str, Any] = {"ready": False, "status": "timeout", "error": why}
    except PracticePackageError as error:
        ready = {"ready": False, "status": "error", "error": str(error), "limit": limit_of(error)}
    except SystemExit as stopped:
        why = f"{where}: the practice package calls sys.exit({stopped.code!r}) while importing"
        ready = {"ready": False, "status": "error", "error": why}
    except MemoryError:
        why = f"out of memory ({args.memory_mb} MiB)"
        ready = {"ready": False, "status": "crashed", "error": why, "limit": "memory"}
    else:
        ready = {"ready": True}
    write_frame(args.out_fd, ready)
    if ready["ready"]:
        serve(package, rules, args.in_fd, args.out_fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
