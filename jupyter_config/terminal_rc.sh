# Read by every JupyterLab terminal's shell under `make lab` (jupyter_server_config.py):
# bash reads it instead of ~/.bashrc, sh through $ENV. The user's own ~/.bashrc first,
# then the workbook's .venv/bin (COURSE_LAB_BIN) at the front of PATH, so `course-lab`
# and the workbook's python are found even when a start-up file rebuilt PATH.
if [ -n "${BASH_VERSION:-}" ] && [ -f "$HOME/.bashrc" ]; then
    . "$HOME/.bashrc"
fi
if [ -n "${COURSE_LAB_BIN:-}" ]; then
    case ":$PATH:" in
        ":$COURSE_LAB_BIN:"*) ;;
        *) PATH="$COURSE_LAB_BIN:$PATH" ;;
    esac
    export PATH
fi
