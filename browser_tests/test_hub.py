"""The class's JupyterHub, end to end: three students in Chromium, then nothing left running.

``deploy/jupyterhub/jupyterhub_config.py`` runs as its README's trial on one machine runs
it (``COURSE_HUB_ACCOUNTS=shared``: one account runs every server, each student in a home
folder of their own under a temporary folder, one password), with the real
``jupyterhub``, its proxy ``configurable-http-proxy`` (from npm: ``make test-browser``
installs it in a cache folder) and the workbook's environment, on free loopback ports.
The course repository the students' copies are cloned from is the workbook's tracked
files, committed in a temporary folder: what an instructor would publish.

For each of three students, in a browser context of their own: log in; the start page
opens (their first start cloned ``~/workbook``); notebook 01 runs (Run All, no error
output); a terminal finds ``course-lab`` and the workbook's Python, writes the practice
package and checks Lab 11.1 against it (a fresh package: 0/3, "not implemented yet").
Each writes a file of their own; it is in their folder and in no one else's, and one
student cannot open another's server. Then the instructor pushes an update (a changed
notebook, a new one) and one student follows nbgitpuller's link: the update arrives,
her own change stays, the others' copies are untouched. Meanwhile the memory of each
student's processes is sampled; the figures and each home folder's size are written to
``browser_tests/artifacts/hub-sizes.json`` and printed (``pytest -s`` shows them).

Last, the hub is stopped as an instructor stops it (SIGTERM): it must end, every process
it started (proxy, servers, kernels, terminals, their children) must be gone, and every
port it or its servers listened on must be free.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import LAB_SETTINGS, REPO, WINDOW, free_port
from lab_page import (
    TERMINAL_SCREEN,
    StoredNotebook,
    error_outputs,
    open_notebook,
    open_terminal,
    run_all,
)
from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

CONFIG = REPO / "deploy" / "jupyterhub" / "jupyterhub_config.py"
BIN = Path(sys.executable).parent
STUDENTS = ("ana", "ben", "chloe")
START_PAGE = "notebooks/00-start-here.ipynb"
NOTEBOOK_01 = "notebooks/01-lab-11.1-compaction-entry.ipynb"
UPDATED = "notebooks/08-recap.ipynb"
ADDED = "notebooks/10-extra-exercise.ipynb"

PROXY = "configurable-http-proxy"
PROXY_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "course-lab" / "hub-proxy"
)
"""Where ``make test-browser`` installs the proxy from npm (outside the repository)."""
PROXY_INSTALL = f"npm install --prefix {PROXY_CACHE} {PROXY}@5"

START_TIMEOUT = 90.0
STOP_TIMEOUT = 60.0
"""The hub gives each server 20 s to stop before it kills it (jupyterhub_config.py)."""
SPAWN_TIMEOUT_MS = 120_000
CHECK_TIMEOUT_MS = 120_000

HUB_SETTINGS = {
    **LAB_SETTINGS,
    # xterm.js keeps the screen's text in the page (an accessibility tree), to be read.
    "@jupyterlab/terminal-extension/plugin": {"screenReaderMode": True},
}
"""Each student's JupyterLab settings, written in their home before their first start."""

STUDENT_SERVER_CONFIG = {"LabApp": {"expose_app_in_browser": True}}
"""A student's own ``~/.jupyter`` setting: ``window.jupyterapp``, which the test drives."""

TERMINAL_COMMAND = (
    "course-lab practice 11 && echo {name} > practice/{name}.txt; "
    'course-lab check 11.1 --impl practice/ch11; echo "check ""status: $?"; '
    'echo "course""-lab: $(command -v course-lab)"'
)
"""Typed as one line; the split quotes keep the typed line from holding the answers' labels."""

TERMINAL_EXPECTS = (
    "Wrote the Chapter 11 practice package to practice/ch11",
    "Lab 11.1 compaction entry: checks against practice package practice/ch11",
    "FAIL  test_compaction_entry_parses_strictly_into_an_independent_copy",
    "LabNotImplemented: Lab 11.1 compaction entry is not implemented yet",
    "Lab 11.1: 0/3 passed",
    "check status: 1",
    f"course-lab: {BIN / 'course-lab'}",
)
"""What the terminal must show: a fresh package fails every check of Lab 11.1, on purpose."""


# --- prerequisites -------------------------------------------------------------------


def proxy_folder() -> Path:
    """The folder of ``configurable-http-proxy``, put first on the hub's ``PATH``."""
    configured = os.environ.get("CONFIGURABLE_HTTP_PROXY")
    if configured:
        candidates = [Path(configured)]
    else:
        on_path = shutil.which(PROXY)
        candidates = [Path(on_path)] if on_path else []
        candidates.append(PROXY_CACHE / "node_modules" / ".bin" / PROXY)
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            if not shutil.which("node"):
                pytest.fail(f"{PROXY} needs Node.js 20 or newer: install nodejs", pytrace=False)
            return candidate.parent
    where = f"CONFIGURABLE_HTTP_PROXY={configured} is not" if configured else "no"
    pytest.fail(
        f"{where} {PROXY} (JupyterHub's proxy, from npm): `make test-browser` installs it; "
        f"or run `{PROXY_INSTALL}`, or set CONFIGURABLE_HTTP_PROXY to its path",
        pytrace=False,
    )


def check_prerequisites() -> None:
    """JupyterHub and nbgitpuller in this environment, git on ``PATH``: else say what to install."""
    missing = [name for name in ("jupyterhub", "nbgitpuller") if not importlib.util.find_spec(name)]
    if missing:
        pytest.fail(
            f"{' and '.join(missing)} not installed: pip install -e '.[hub]' "
            "(`make test-browser` installs it)",
            pytrace=False,
        )
    if not shutil.which("git"):
        pytest.fail("git is needed (students' copies are git clones): install git", pytrace=False)


# --- the course repository, as an instructor publishes it -------------------------------


def git(folder: Path, *arguments: str) -> str:
    """Run git in ``folder`` with a fixed identity and no signing; its output."""
    identity = ["-c", "user.name=Instructor", "-c", "user.email=instructor@example.org"]
    command = ["git", *identity, "-c", "commit.gpgsign=false", "-C", str(folder), *arguments]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def publish_course(folder: Path) -> None:
    """The workbook's tracked files, committed on ``main`` in a repository of their own."""
    try:
        listed = git(REPO, "ls-files", "-z")
    except subprocess.CalledProcessError as error:
        pytest.fail(
            f"the hub test publishes the workbook's tracked files: run it in a git checkout "
            f"({error.stderr.strip()})",
            pytrace=False,
        )
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # tracked, and not deleted in the work tree
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "The Chapter 11 workbook")


def markdown_cell(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": secrets.token_hex(4), "metadata": {}, "source": text}


def append_cell(notebook: Path, text: str) -> None:
    """Add a markdown cell at the end, as JupyterLab would save it."""
    content = json.loads(notebook.read_text(encoding="utf-8"))
    content["cells"].append(markdown_cell(text))
    notebook.write_text(json.dumps(content, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def push_update(course: Path) -> None:
    """The instructor's update: a cell added to the recap, a new notebook."""
    append_cell(course / UPDATED, "Updated by the instructor after class.")
    new = json.loads((course / START_PAGE).read_text(encoding="utf-8"))
    new["cells"] = [markdown_cell("# An extra exercise\n\nPosted after class.")]
    (course / ADDED).write_text(json.dumps(new, indent=1) + "\n", encoding="utf-8")
    git(course, "add", "-A")
    git(course, "commit", "-q", "-m", "An extra exercise")


# --- processes: the hub's tree, what each student's processes hold -------------------------


def _stat(pid: int) -> tuple[int, int] | None:
    """``(parent pid, start time)`` of a live process, or ``None``."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[19])


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def descendants(root: int) -> dict[int, int]:
    """Every process below ``root`` now, with its start time (a pid may be reused later)."""
    children: dict[int, list[tuple[int, int]]] = {}
    for pid in _pids():
        stat = _stat(pid)
        if stat:
            children.setdefault(stat[0], []).append((pid, stat[1]))
    found, waiting = {}, [root]
    while waiting:
        for pid, started in children.get(waiting.pop(), []):
            found[pid] = started
            waiting.append(pid)
    return found


def still_running(processes: dict[int, int]) -> list[int]:
    """The processes of ``processes`` (pid → start time) that are alive."""
    return [pid for pid, started in processes.items() if (_stat(pid) or (0, -1))[1] == started]


def _describe(pids: list[int]) -> list[str]:
    described = []
    for pid in pids:
        with suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            described.append(f"{pid}: {command.decode(errors='replace').strip()[:120]}")
    return described


def under(folder: Path) -> list[int]:
    """Processes whose working folder or ``HOME`` is inside ``folder`` (all this test started)."""
    inside = []
    for pid in _pids():
        if pid == os.getpid():
            continue
        try:
            places = [os.readlink(f"/proc/{pid}/cwd")]
            environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        places += [v[5:].decode(errors="replace") for v in environment if v.startswith(b"HOME=")]
        if any(place == str(folder) or place.startswith(f"{folder}/") for place in places):
            inside.append(pid)
    return inside


def _memory(pid: int) -> tuple[int, int]:
    """``(RSS, PSS)`` of a process in bytes; ``(0, 0)`` once it has ended."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0, 0
    values = dict(re.findall(r"^(Rss|Pss):\s+(\d+) kB", rollup, re.MULTILINE))
    return int(values.get("Rss", 0)) * 1024, int(values.get("Pss", 0)) * 1024


def _kind(pid: int) -> str:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "ended"
    if b"jupyterhub-singleuser" in command:
        return "server"
    if b"ipykernel" in command:
        return "kernel"
    return "other"


def student_processes(homes: Path) -> dict[str, list[int]]:
    """Each student's processes: every process whose ``HOME`` is their home folder."""
    owned: dict[str, list[int]] = {}
    for pid in _pids():
        try:
            environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for variable in environment:
            if variable.startswith(f"HOME={homes}/".encode()):
                owned.setdefault(Path(variable[5:].decode()).name, []).append(pid)
    return owned


@dataclass
class MemorySampler:
    """Samples each student's processes every quarter second: the peak of their sum."""

    homes: Path
    peak_rss: dict[str, int] = field(default_factory=dict)
    peak_pss: dict[str, int] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            for name, pids in student_processes(self.homes).items():
                rss, pss = map(sum, zip(*(_memory(pid) for pid in pids), strict=True))
                self.peak_rss[name] = max(rss, self.peak_rss.get(name, 0))
                self.peak_pss[name] = max(pss, self.peak_pss.get(name, 0))

    @contextmanager
    def running(self) -> Iterator[MemorySampler]:
        thread = threading.Thread(target=self._run, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            thread.join()


def folder_size(folder: Path) -> int:
    """Bytes on disk (allocated blocks) of everything in ``folder``, links not followed."""
    total = 0
    for path in [folder, *folder.rglob("*")]:
        with suppress(OSError):
            total += path.lstat().st_blocks * 512
    return total


def port_free(port: int) -> bool:
    """Whether a new server could listen on ``port``: nobody listens there any more.

    As servers do (and the next hub would), with ``SO_REUSEADDR``: the closed connections
    the kernel keeps a minute in TIME_WAIT do not count, a listening socket does.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


# --- the hub ------------------------------------------------------------------------------


@dataclass
class Hub:
    """A running hub: its address, its process, its homes, where it logs."""

    url: str
    ports: list[int]
    process: subprocess.Popen[bytes]
    homes: Path
    log: Path
    password: str
    tree: dict[int, int] = field(default_factory=dict)
    left_behind: list[str] = field(default_factory=list)
    stop_seconds: float = 0.0

    def server_ports(self) -> list[int]:
        """The single-user servers' ports, from the hub's log (``Adding user ... => URL``)."""
        text = self.log.read_text(errors="replace")
        return [
            int(p) for p in re.findall(r"Adding user \S+ to proxy \S+ => http://[\d.]+:(\d+)", text)
        ]

    def remember_tree(self) -> None:
        """Note every process below the hub now (called while the servers run)."""
        self.tree |= descendants(self.process.pid)

    def stop(self, scratch: Path) -> list[str]:
        """SIGTERM, as Ctrl-C or a service manager stops it; then what is left (killed)."""
        self.remember_tree()
        started = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.left_behind.append(f"{self.process.pid}: the hub, still running")
                self.process.kill()
                self.process.wait()
        self.stop_seconds = round(time.monotonic() - started, 1)
        deadline = time.monotonic() + STOP_TIMEOUT
        while True:
            remaining = sorted(set(still_running(self.tree)) | set(under(scratch)))
            if not remaining or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.left_behind += _describe(remaining)
        for pid in remaining:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return self.left_behind


def _distinct_ports(count: int) -> list[int]:
    ports: set[int] = set()
    while len(ports) < count:
        ports.add(free_port())
    return sorted(ports)


def _wait_until_serving(hub: Hub) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if hub.process.poll() is not None:
            pytest.fail(f"JupyterHub stopped while starting:\n{hub.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{hub.url}/hub/api", timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    pytest.fail(
        f"JupyterHub did not answer within {START_TIMEOUT:.0f} s:\n{hub.log.read_text()[-3000:]}"
    )


def _write_student_settings(home: Path) -> None:
    """What a student could have set in their own ``~/.jupyter`` before the first start."""
    settings = home / ".jupyter" / "lab" / "user-settings"
    for plugin, values in HUB_SETTINGS.items():
        file = settings / f"{plugin}.jupyterlab-settings"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(values), encoding="utf-8")
    config = home / ".jupyter" / "jupyter_server_config.json"
    config.write_text(json.dumps(STUDENT_SERVER_CONFIG), encoding="utf-8")


@contextmanager
def running_hub(scratch: Path, course: Path, log: Path) -> Iterator[Hub]:
    """``jupyterhub -f deploy/jupyterhub/jupyterhub_config.py`` on loopback; stopped afterwards."""
    homes, state = (scratch / "homes").resolve(), scratch / "state"
    state.mkdir()
    for name in STUDENTS:
        _write_student_settings(homes / name)
    public, internal, api = _distinct_ports(3)
    password = secrets.token_urlsafe(12)
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("COURSE_HUB_", "JUPYTERHUB_", "CONFIGPROXY_", "JUPYTER_"))
    }
    environment |= {
        "PATH": os.pathsep.join([str(proxy_folder()), str(BIN), environment.get("PATH", "")]),
        "COURSE_HUB_USERS": " ".join(STUDENTS),
        "COURSE_HUB_ACCOUNTS": "shared",
        "COURSE_HUB_HOMES": str(homes),
        "COURSE_HUB_PASSWORD": password,
        "COURSE_HUB_REPO": str(course),
        "COURSE_HUB_BRANCH": "main",
    }
    command = [
        str(BIN / "jupyterhub"),
        "-f",
        str(CONFIG),
        f"--JupyterHub.bind_url=http://127.0.0.1:{public}",
        f"--JupyterHub.hub_bind_url=http://127.0.0.1:{internal}",
        f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{api}",
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=state,  # the hub's database and cookie secret
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    hub = Hub(f"http://127.0.0.1:{public}", [public, internal, api], process, homes, log, password)
    try:
        _wait_until_serving(hub)
        yield hub
    finally:
        hub.stop(scratch)


# --- a student in the browser ----------------------------------------------------------------


@dataclass
class StudentLab:
    """A student's JupyterLab behind the hub, shaped as ``lab_page.open_notebook`` uses one."""

    hub: str
    name: str

    def url(self, path: str) -> str:
        return f"{self.hub}/user/{self.name}{path}"

    def notebook_url(self, relative: str, workspace: str) -> str:
        return self.url(f"/lab/workspaces/{workspace}/tree/{relative}")


def squashed(text: str) -> str:
    """Without whitespace: a long line wraps across the terminal's rows anywhere."""
    return re.sub(r"\s+", "", text)


def log_in(page: Page, hub: Hub, name: str) -> None:
    page.goto(f"{hub.url}/hub/login")
    page.fill("#username_input", name)
    page.fill("#password_input", hub.password)
    page.click("#login_submit")


def start_page_problems(page: Page, name: str) -> list[str]:
    """After the login: the first start ends on the start page, its heading drawn."""
    try:
        page.wait_for_url(f"**/user/{name}/lab/tree/{START_PAGE}*", timeout=SPAWN_TIMEOUT_MS)
        heading = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell h1").first
        heading.wait_for(timeout=SPAWN_TIMEOUT_MS)
    except PlaywrightTimeout:
        return [f"the start page did not open: at {page.url}"]
    title = heading.inner_text()
    if "Chapter 11 workbook" not in title:
        return [f"the start page's heading is {title!r}"]
    return []


def terminal_screen(page: Page, lab: StudentLab, command: str) -> tuple[bool, str]:
    """Open a terminal, type ``command``; whether it finished, and what the screen shows."""
    page.goto(lab.url("/lab/workspaces/terminal"))
    open_terminal(page)
    page.locator(".jp-Terminal .xterm").first.click()
    page.keyboard.type(command)
    page.keyboard.press("Enter")
    try:
        page.wait_for_function(
            f"() => ({TERMINAL_SCREEN})().replace(/\\s+/g, '').includes('course-lab:/')",
            timeout=CHECK_TIMEOUT_MS,
        )
        done = True
    except PlaywrightTimeout:
        done = False
    return done, str(page.evaluate(TERMINAL_SCREEN))


def student_problems(page: Page, hub: Hub, name: str, artifacts: Path) -> list[str]:
    """One student's whole visit; every problem found, in order."""
    lab = StudentLab(hub.url, name)
    log_in(page, hub, name)
    problems = start_page_problems(page, name)
    page.screenshot(path=str(artifacts / f"hub-{name}-start-page.png"))
    if problems:
        return problems

    stored = StoredNotebook.read(REPO / NOTEBOOK_01)
    notebook = open_notebook(page, lab, NOTEBOOK_01)  # type: ignore[arg-type]
    run_all(page, stored.executions)
    problems += [f"notebook 01: {error}" for error in error_outputs(notebook)]
    page.screenshot(path=str(artifacts / f"hub-{name}-notebook-01.png"))

    done, screen = terminal_screen(page, lab, TERMINAL_COMMAND.format(name=name))
    page.screenshot(path=str(artifacts / f"hub-{name}-terminal.png"))
    if not done:
        return [*problems, f"the terminal's command did not finish; the screen:\n{screen}"]
    if "command not found" in screen:
        problems.append(f"the terminal: command not found:\n{screen}")
    shown = squashed(screen)
    problems += [
        f"the terminal does not show {line!r}:\n{screen}"
        for line in TERMINAL_EXPECTS
        if squashed(line) not in shown
    ]
    return problems


def git_pull_link(hub: Hub, course: Path, open_after: str) -> str:
    """nbgitpuller's link, as an instructor posts it (README: the link format)."""
    query = urllib.parse.urlencode(
        {
            "repo": str(course),
            "branch": "main",
            "targetpath": ".",
            "urlpath": f"lab/tree/{open_after}",
        }
    )
    return f"{hub.url}/hub/user-redirect/git-pull?{query}"


# --- the figures an instructor sizes a hub with ------------------------------------------------


def _mib(size: int) -> float:
    return round(size / 2**20, 1)


def measure(hub: Hub, sampler: MemorySampler) -> dict[str, Any]:
    """Memory per student now (by process) and at its peak; disk per home folder; the hub's."""
    students: dict[str, Any] = {}
    for name, pids in sorted(student_processes(hub.homes).items()):
        processes = [
            {"kind": _kind(pid), "rss_mib": _mib(rss), "pss_mib": _mib(pss)}
            for pid in pids
            for rss, pss in [_memory(pid)]
            if rss
        ]
        home = hub.homes / name
        students[name] = {
            "processes": sorted(processes, key=lambda p: p["kind"]),
            "rss_mib": round(sum(p["rss_mib"] for p in processes), 1),
            "pss_mib": round(sum(p["pss_mib"] for p in processes), 1),
            "peak_rss_mib": _mib(sampler.peak_rss.get(name, 0)),
            "peak_pss_mib": _mib(sampler.peak_pss.get(name, 0)),
            "home_mib": _mib(folder_size(home)),
            "workbook_git_mib": _mib(folder_size(home / "workbook" / ".git")),
            "practice_mib": _mib(folder_size(home / "workbook" / "practice")),
        }
    hub_processes = [hub.process.pid] + [
        pid for pid in descendants(hub.process.pid) if PROXY.encode() in _cmdline(pid)
    ]
    return {
        "date": date.today().isoformat(),
        "machine": {"cores": os.cpu_count(), "python": sys.version.split()[0]},
        "students": students,
        "hub_and_proxy_rss_mib": _mib(sum(_memory(pid)[0] for pid in hub_processes)),
    }


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def report(figures: dict[str, Any]) -> str:
    lines = [f"Hub sizes, measured {figures['date']} ({figures['machine']['cores']} cores):"]
    for name, student in figures["students"].items():
        kinds = ", ".join(f"{p['kind']} {p['rss_mib']}" for p in student["processes"])
        lines.append(
            f"  {name}: RSS {student['rss_mib']} MiB now ({kinds}), PSS {student['pss_mib']}; "
            f"peak RSS {student['peak_rss_mib']}, peak PSS {student['peak_pss_mib']}; "
            f"home {student['home_mib']} MiB (.git {student['workbook_git_mib']}, "
            f"practice {student['practice_mib']})"
        )
    lines.append(f"  hub and proxy: RSS {figures['hub_and_proxy_rss_mib']} MiB")
    lines.append(f"  the hub stopped, its servers with it, in {figures['hub_stop_seconds']} s")
    return "\n".join(lines)


# --- the test --------------------------------------------------------------------------------


def test_three_students_on_the_class_hub(
    browser: Browser, tmp_path: Path, artifacts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_prerequisites()
    course = tmp_path / "course"
    publish_course(course)
    log = artifacts / "jupyterhub.log"
    contexts: dict[str, BrowserContext] = {}
    figures: dict[str, Any] = {}
    with running_hub(tmp_path, course, log) as hub:
        sampler = MemorySampler(hub.homes)
        try:
            with sampler.running():
                for name in STUDENTS:
                    contexts[name] = browser.new_context(viewport=WINDOW, device_scale_factor=1)
                    page = contexts[name].new_page()
                    problems = student_problems(page, hub, name, artifacts)
                    assert problems == [], f"{name}: " + "\n".join(problems)
                    hub.remember_tree()
                figures = measure(hub, sampler)

            # One student's server is hers alone: another student is turned away.
            answer = contexts["ben"].request.get(f"{hub.url}/user/ana/api/contents/practice")
            assert answer.status == 403, f"ben reached ana's server: {answer.status} {answer.url}"

            # The instructor's update reaches ana through the link; her own change stays.
            append_cell(hub.homes / "ana" / "workbook" / START_PAGE, "Ana's own note.")
            push_update(course)
            page = contexts["ana"].pages[0]
            page.goto(git_pull_link(hub, course, ADDED))
            page.wait_for_url(f"**/user/ana/lab/tree/{ADDED}*", timeout=SPAWN_TIMEOUT_MS)
            page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell h1").first.wait_for()
            page.screenshot(path=str(artifacts / "hub-ana-after-git-pull.png"))
            hub.remember_tree()
        finally:
            for context in contexts.values():
                context.close()
    ports = [*hub.ports, *hub.server_ports()]

    figures["hub_stop_seconds"] = hub.stop_seconds
    (artifacts / "hub-sizes.json").write_text(json.dumps(figures, indent=2) + "\n")
    (artifacts / "hub-sizes.txt").write_text(report(figures) + "\n")
    with capsys.disabled():  # shown with -q too: the README's figures come from here
        print("\n" + report(figures))

    workbooks = {name: hub.homes / name / "workbook" for name in STUDENTS}
    for name, workbook in workbooks.items():
        own = sorted(p.name for p in (workbook / "practice").glob("*.txt"))
        assert own == [f"{name}.txt"], f"{name}'s ~/workbook/practice holds {own}"
        assert (workbook / ".venv" / "bin" / "course-lab").is_file(), (
            f"{name}: ~/workbook/.venv/bin/course-lab, which the notebooks print, is missing"
        )
        assert (workbook / "practice" / "ch11" / "entries.py").is_file(), (
            f"{name}: the terminal wrote no practice/ch11 in ~/workbook, where the notebooks look"
        )
    ana, ben = workbooks["ana"], workbooks["ben"]
    assert "Updated by the instructor" in (ana / UPDATED).read_text(encoding="utf-8")
    assert (ana / ADDED).is_file()
    assert "Ana's own note." in (ana / START_PAGE).read_text(encoding="utf-8")
    assert not (ben / ADDED).exists(), "ben's copy changed without his link"
    assert "Updated by the instructor" not in (ben / UPDATED).read_text(encoding="utf-8")

    assert hub.process.returncode is not None, "the hub did not stop"
    assert hub.left_behind == [], f"processes left after the hub stopped: {hub.left_behind}"
    busy = [port for port in ports if not port_free(port)]
    assert busy == [], f"ports still taken after the hub stopped: {busy}"
    assert len(hub.server_ports()) == len(STUDENTS), "each student had a server of their own"
