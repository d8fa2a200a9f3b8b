#!/bin/sh
# A student's JupyterLab starts here, as the student, in their home folder: the hub's
# Spawner.cmd (jupyterhub_config.py) and the image's singleuser.cmd on Kubernetes
# (z2jh-values.yaml) run this script with the server's command as its arguments.
#
# First start only: the student's own copy of the workbook, ~/workbook, a shallow git
# clone of the course repository ($COURSE_HUB_REPO, branch $COURSE_HUB_BRANCH) made by
# nbgitpuller's `gitpuller`, with an empty practice/ (git-ignored: no update touches it)
# and a .venv link to the environment the servers run, so the notebooks' commands
# (`.venv/bin/course-lab practice 11`) work as printed. A later start finds ~/workbook and
# changes nothing in it; updates come only from the instructor's git-pull link, which
# merges them and keeps the student's changes. Then the server replaces this shell.
set -eu

bin="${COURSE_LAB_BIN:?COURSE_LAB_BIN is not set: the bin folder of the environment the servers run}"
PATH="$bin:$PATH"
export PATH
workbook="$HOME/workbook"

if [ ! -d "$workbook" ]; then
    if [ -z "${COURSE_HUB_REPO:-}" ]; then
        echo "start-singleuser.sh: COURSE_HUB_REPO is not set: the git URL of the course repository" >&2
        exit 1
    fi
    # Cloned beside, then renamed: a clone cut short is retried at the next start.
    partial="$workbook.partial"
    rm -rf "$partial"
    if ! gitpuller "$COURSE_HUB_REPO" "${COURSE_HUB_BRANCH:-main}" "$partial"; then
        rm -rf "$partial"
        echo "start-singleuser.sh: could not clone $COURSE_HUB_REPO (branch ${COURSE_HUB_BRANCH:-main}) into $workbook" >&2
        exit 1
    fi
    mv "$partial" "$workbook"
fi
mkdir -p "$workbook/practice"
[ -e "$workbook/.venv" ] || [ -L "$workbook/.venv" ] || ln -s "$(dirname "$bin")" "$workbook/.venv"
# A terminal opens where the server runs: in the workbook, as under `make lab`, so
# `course-lab practice 11` writes workbook/practice/ch11, where the notebooks look.
cd "$workbook"
exec "$@"
