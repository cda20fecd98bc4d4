#!/usr/bin/env bash
# Course settings for the Jupyter of one environment:
#   - no news pop-up and no update check in JupyterLab (tools/overrides.json);
#   - nbgrader's teacher panels hidden: nbgrader is only a library here (it
#     makes the learner copies), and its panels would puzzle a learner.
# Used by the Makefile for .venv, by postBuild for Binder, and by conda users:
#   bash tools/course_jupyter.sh [BIN_DIR]     (default: the active environment)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$(dirname "$(command -v python)")}
prefix=$("$bin/python" -c 'import sys; print(sys.prefix)')

mkdir -p "$prefix/share/jupyter/lab/settings"
cp "$here/overrides.json" "$prefix/share/jupyter/lab/settings/overrides.json"
"$bin/jupyter" labextension disable --level=sys_prefix @jupyter/nbgrader >/dev/null 2>&1
for ext in formgrader validate_assignment assignment_list course_list; do
    "$bin/jupyter" server extension disable --sys-prefix "nbgrader.server_extensions.$ext" >/dev/null 2>&1
done
