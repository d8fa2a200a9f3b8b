"""The judge's side of the channel: a practice package whose rules answer from another process.

``RemotePackage`` looks like the practice package to a check (``impl.build_context(...)``,
``impl.MessageEntry``): a rule name sends a call to the rule server and reads the answer
back through the course's own types; every other name is ``course_lib``'s own, because
the types and the given code are defined once and the judge needs no copy from the
judged side. Nothing the judged process prints, writes or sends counts, except an
answer to a call the judge made, read as plain data.

A call that goes wrong fails that call only: an answer that cannot be read, an
oversized one, a crash (the next call starts the package again, a few times at
most). A late answer ends the run: the process is killed and every later call
fails at once with ``Timeout``, so a check run always ends near its time limit.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import course_lib
from course_lib.base import errors as course_errors
from course_lib.chapter.labs import LabNotImplemented

from .codec import ChannelError, Codec, adopt, given_types
from .confinement import LIMITS, limit_of
from .frames import BadFrame, FrameError, LateFrame, read_frame, write_frame

__all__ = [
    "CALL_SECONDS",
    "AnswerUnreadable",
    "CallTimeout",
    "Launcher",
    "RemotePackage",
    "RuleError",
    "RuleServerError",
    "RulesCrashed",
    "Timeout",
    "local_launcher",
]

CALL_SECONDS = 60.0
"""The longest one call may take when the run has no overall time limit (a student's check)."""

RESTARTS = 3
"""How many times a package whose process died is started again before every call fails."""

IMPORT_GRACE = 3.0
"""How long past the time limit the judge waits for a package to say it is ready."""

Launcher = Callable[[int, int], subprocess.Popen[bytes]]
"""Starts the rule server reading calls on the first descriptor and answering on the second."""


class Timeout(BaseException):
    """The rules did not answer in time: the run stops (not an ``Exception``, so no check
    helper can catch it and go on; pytest and the check runner record it as a failure)."""


class CallTimeout(Timeout):
    """One call ran past its own limit (``RemotePackage.each_call_within``): the process
    is ended and that call fails, but the run goes on (the next call starts it again)."""


class RulesCrashed(Exception):
    """The process running the rules ended during a call."""


class AnswerUnreadable(Exception):
    """An answer that is no value the course can read: that call fails, no other."""


class RuleServerError(course_errors.CourseError):
    """The package could not be started: it fails to import, exits, or hangs while importing.

    ``status`` is the grader's word for it: ``error``, ``timeout`` or ``crashed``.
    """

    def __init__(self, message: str, status: str = "error", limit: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.limit = limit
        """The limit the import reached (``confinement.limit_of``), if that is why."""


def local_launcher(
    package: Path | None,
    rules: Sequence[str],
    *,
    seconds: float = CALL_SECONDS,
    memory_mb: int = 4096,
    file_mb: int = 512,
    processes: int = 4096,
) -> Launcher:
    """Start the rule server as a plain child of this process (``course-lab check``, the tests).

    On a student's own machine nothing needs fencing: the point is that the
    checks run apart from the rules, exactly as the grader runs them. Without
    a ``package`` the rules are the reference's (the project's own tests).
    """
    where = [] if package is None else [str(package)]  # as given: messages name it so

    def launch(calls: int, answers: int) -> subprocess.Popen[bytes]:
        command = [sys.executable, "-P", "-m", "course_lib.judge.rule_server", *where]
        command += ["--rules", ",".join(rules), "--in-fd", str(calls), "--out-fd", str(answers)]
        command += ["--timeout", f"{seconds:g}", "--memory-mb", str(memory_mb)]
        command += ["--file-mb", str(file_mb), "--processes", str(processes)]
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(calls, answers),
        )

    return launch


class _Server:
    """One running rule server and the two ends of its channel the judge holds."""

    def __init__(self, launch: Launcher) -> None:
        calls_read, self.calls = os.pipe()
        self.answers, answers_write = os.pipe()
        try:
            self.process = launch(calls_read, answers_write)
        finally:
            os.close(calls_read)
            os.close(answers_write)

    def stop(self) -> None:
        for fd in (self.calls, self.answers):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()

    def ended(self) -> str:
        """How the process ended, in a few words (it is given a moment to end)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=1)
        status = self.process.returncode
        if status is None:
            return "stopped answering"
        number = -status if status < 0 else status - 128  # a shell or bubblewrap: 128 + signal
        if status < 0 or 128 < status < 128 + signal.NSIG:
            try:
                return f"was stopped by {signal.Signals(number).name}"
            except ValueError:
                return f"was stopped by signal {number}"
        return f"ended with exit status {status}"


class RemotePackage:
    """A practice package as the judge sees it: rules by call, everything else ``course_lib``'s.

    ``deadline`` (``time.monotonic()``) is the end of the whole run, the
    grader's time limit; without it each call may take ``CALL_SECONDS``.
    """

    def __init__(
        self,
        launch: Launcher,
        rules: Sequence[str],
        *,
        deadline: float | None = None,
        name: str = "the practice package",
    ) -> None:
        self._launch = launch
        self._rules = frozenset(rules)
        self._deadline = deadline
        self._types = given_types()
        self._server: _Server | None = None
        self._restarts = 0
        self._stopped: str | None = None
        self._call_limit: float | None = None
        self.limit_hits: Counter[str] = Counter()
        """Errors that mean a limit was reached, by limit (``confinement.limit_of``), from their kind
        and ``errno``: never from their text, which the rules write."""
        self.crashes: list[str] = []
        """How each call whose process died ended (``ran build_context: was stopped by SIGSEGV``)."""
        self.__name__ = name

    # --- the package's names ---------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._rules:
            return _RemoteRule(self, name)
        if name in course_lib.__all__:
            return getattr(course_lib, name)
        raise AttributeError(f"the practice package has no {name!r}")

    # --- the process -----------------------------------------------------------------------

    def start(self) -> None:
        """Start the rules' process and wait until it is ready; ``RuleServerError`` if it cannot."""
        if self._server is not None:
            return
        server = _Server(self._launch)
        try:  # the server's own alarm ends a hanging import first and says so
            ready = read_frame(server.answers, deadline=self._call_deadline() + IMPORT_GRACE)
        except FrameError as error:
            server.stop()
            if isinstance(error, BadFrame):
                raise RuleServerError(
                    f"the package wrote on the judge's channel while importing ({error}); "
                    "nothing it sent counts",
                    "error",
                ) from None
            if isinstance(error, LateFrame):
                raise RuleServerError(
                    "importing the package did not finish in time; look for an endless loop "
                    "at module level",
                    "timeout",
                ) from None
            raise RuleServerError(
                f"the package's process {server.ended()} while importing", "crashed"
            ) from None
        if type(ready) is not dict or ready.get("ready") is not True:
            server.stop()
            status = ready.get("status", "error") if type(ready) is dict else "error"
            why = ready.get("error") if type(ready) is dict else None
            limit = ready.get("limit") if type(ready) is dict else None
            known = limit if limit in LIMITS.values() else None
            raise RuleServerError(str(why or "the package's process did not start"), status, known)
        self._server = server

    def close(self) -> None:
        """End the rules' process (the next call starts it again)."""
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> RemotePackage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call_deadline(self) -> float:
        limit = self._call_limit if self._call_limit is not None else CALL_SECONDS
        own = time.monotonic() + limit
        if self._deadline is None:
            return own
        return own if self._call_limit is not None and own < self._deadline else self._deadline

    @contextlib.contextmanager
    def each_call_within(self, seconds: float) -> Iterator[None]:
        """Give every call in the block at most ``seconds`` (``CallTimeout`` past it)."""
        previous, self._call_limit = self._call_limit, seconds
        try:
            yield
        finally:
            self._call_limit = previous

    def out_of_time(self) -> bool:
        """Whether the run's time limit has passed (or a call already ran past it)."""
        late = self._deadline is not None and time.monotonic() >= self._deadline
        return late or self._stopped is not None

    # --- one call ---------------------------------------------------------------------------

    def call(self, rule: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Call ``rule`` in the rules' process; its answer, or the error it raised, here."""
        if self._stopped is not None:
            raise Timeout(self._stopped)
        if self._deadline is not None and time.monotonic() >= self._deadline:
            self._stop_run()
        codec = Codec(self._types, strict=True)
        sent = codec.encode((args, kwargs))  # a ChannelError here is the check's own mistake
        if self._server is None and self._restarts > RESTARTS:
            raise RulesCrashed(f"not run: the package's process ended {RESTARTS + 1} times")
        self.start()
        server = self._server
        assert server is not None
        ticket = secrets.token_hex(8)  # an answer written before this call cannot carry it
        try:
            write_frame(server.calls, {"call": rule, "ticket": ticket, "value": sent})
            reply = read_frame(server.answers, deadline=self._call_deadline())
        except (FrameError, OSError) as error:
            if isinstance(error, LateFrame):
                run_over = self._deadline is not None and time.monotonic() >= self._deadline
                if run_over or self._call_limit is None:
                    self._stop_run()
                self.close()
                seconds = self._call_limit
                why = f"did not finish within {seconds:g} s; look for an endless loop"
                raise CallTimeout(why) from None
            self._server = None
            self._restarts += 1
            if isinstance(error, BadFrame):
                server.stop()
                raise AnswerUnreadable(f"{rule}: {error}") from None
            why = server.ended()
            server.stop()
            self.crashes.append(f"{why} during a call of {rule}")
            raise RulesCrashed(f"the process running {rule} {why} during the call") from None
        if type(reply) is not dict or reply.get("ticket") != ticket:
            self._server = None  # the channel no longer pairs answers with calls
            self._restarts += 1
            server.stop()
            self.crashes.append(f"sent an answer to no call of the judge's during a call of {rule}")
            raise AnswerUnreadable(f"{rule}: an answer to no call of the judge's")
        return self._read_reply(rule, codec, args, kwargs, reply)

    def _stop_run(self) -> None:
        self._stopped = "not run, the checks were stopped at the time limit"
        self.close()
        raise Timeout("did not finish within the time limit; look for an endless loop")

    def _read_reply(
        self,
        rule: str,
        codec: Codec,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        reply: Any,
    ) -> Any:
        if type(reply) is not dict:
            raise AnswerUnreadable(f"{rule}: an answer that is not one")
        if "after" in reply:
            try:
                after_args, after_kwargs = Codec(self._types).decode(reply["after"])
                for before, now in zip(args, after_args, strict=True):
                    adopt(before, now)
                for key, now in after_kwargs.items():
                    adopt(kwargs[key], now)
            except (ChannelError, ValueError, TypeError, KeyError) as error:
                raise AnswerUnreadable(f"{rule}: the arguments it sent back: {error}") from None
        if "error" in reply:
            raised = _rebuilt(reply["error"])
            limit = limit_of(raised)
            if limit is not None:
                self.limit_hits[limit] += 1
            raise raised
        if "value" not in reply:
            why = reply.get("unsendable") or reply.get("refused") or "no value"
            raise AnswerUnreadable(f"{rule}: {str(why)[:300]}")
        try:
            return codec.decode(reply["value"])
        except (ChannelError, RecursionError) as error:
            raise AnswerUnreadable(f"{rule}: the answer cannot be read: {error}") from None


class _RemoteRule:
    """One rule of a ``RemotePackage``, called like the function it stands for."""

    def __init__(self, package: RemotePackage, name: str) -> None:
        self._package = package
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._package.call(self.__name__, args, kwargs)

    def __repr__(self) -> str:
        return f"<rule {self.__name__} of {self._package.__name__}>"


class RuleError(Exception):
    """What the rules raised, when it is no error class the judge knows (``SystemExit`` …)."""


_KNOWN_ERRORS: dict[str, type[BaseException]] = {
    name: getattr(course_errors, name) for name in course_errors.__all__
}
_KNOWN_ERRORS["LabNotImplemented"] = LabNotImplemented
_SHOWN: dict[tuple[str, type[BaseException]], type[BaseException]] = {}


def _error_class(kind: object, shown: object) -> type[BaseException]:
    """The judge's class for an error of ``kind`` whose own class was named ``shown``."""
    base = _KNOWN_ERRORS.get(str(kind))
    if base is None:
        candidate = getattr(builtins, str(kind), None)
        is_error = isinstance(candidate, type) and issubclass(candidate, Exception)
        base = candidate if is_error else RuleError
    assert base is not None
    name = str(shown)
    if name == base.__name__ or not name.isidentifier():
        return base
    if (name, base) not in _SHOWN:  # the student's own class name, still a ``base``
        _SHOWN[name, base] = type(name, (base,), {"__module__": "submission"})
    return _SHOWN[name, base]


def _rebuilt(error: Any) -> BaseException:
    """The error the rules raised, as an instance of the judge's own class for it."""
    if type(error) is not dict:
        return AnswerUnreadable("an error report that is not one")
    kind = _error_class(error.get("kind"), error.get("type"))
    message = str(error.get("message", ""))[:4000]
    if kind is RuleError or issubclass(kind, RuleError):
        message = f"{error.get('type')}: {message}" if message else str(error.get("type"))
    rebuilt = kind.__new__(kind)
    BaseException.__init__(rebuilt, message)
    if isinstance(rebuilt, OSError) and type(error.get("errno")) is int:
        rebuilt.errno = error["errno"]
    return rebuilt
