#!/usr/bin/env bash
# Course settings for the Jupyter of one environment:
#   - no news pop-up and no update check in JupyterLab (tools/overrides.json);
#   - nbgrader's teacher panels hidden: nbgrader is only a library here (it
#     makes the learner copies), and its panels would puzzle a learner;
#   - the Jupyter server (JupyterLab, and Binder's) encrypts the traffic with its
#     kernels (CurveZMQ keys it makes for each kernel), so no kernel warns
#     "running over TCP without encryption", and it takes a pasted message of
#     up to 100 MiB (the web socket's default limit is 10 MiB);
#   - notebook_shim's server extension is off: it only adapts extensions written
#     for the classic Notebook server (the course has none), and each start it
#     reads the deprecated ServerApp.token, which prints a DeprecationWarning.
#   - rfc3987-syntax is removed: jsonschema imports it, when it is there, to check the
#     "iri" format (which nothing here asks for), and it builds a grammar at import
#     that costs about 3 s in every process that imports nbformat or the Jupyter server
#     (`python -c "import nbformat"`: 3.6 s with it, 0.4 s without, on 2026-12-02).
#     jsonschema reads it only if it is there (jupyter_events pulls it in through the
#     extra jsonschema[format-nongpl]), so every pytest run, kernel-less tool, nbgrader
#     command and Jupyter server starts 3 s sooner.
# Used by the Makefile for .venv, by postBuild for Binder, and by conda users:
#   bash tools/course_jupyter.sh [BIN_DIR]     (default: the active environment)
# With --hub (the users' environment of a class on JupyterHub, tools/hub), nbgrader stays on:
# there each role's settings (tools/hub/roles) give students the Assignments tab and the
# teacher formgrader.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$(dirname "$(command -v python)")}
hub=${2:-}
prefix=$("$bin/python" -c 'import sys; print(sys.prefix)')

mkdir -p "$prefix/share/jupyter/lab/settings" "$prefix/etc/jupyter"
cp "$here/overrides.json" "$prefix/share/jupyter/lab/settings/overrides.json"
# The environment's own server settings (a user's ~/.jupyter settings still win).
cat > "$prefix/etc/jupyter/jupyter_server_config.json" <<'JSON'
{
  "MappingKernelManager": {"transport_encryption": "auto"},
  "ServerApp": {"tornado_settings": {"websocket_max_message_size": 104857600}}
}
JSON
nbgrader_parts=""
if [ "$hub" != "--hub" ]; then
    "$bin/jupyter" labextension disable --level=sys_prefix @jupyter/nbgrader >/dev/null 2>&1
    nbgrader_parts="nbgrader.server_extensions.formgrader nbgrader.server_extensions.validate_assignment
        nbgrader.server_extensions.assignment_list nbgrader.server_extensions.course_list"
fi
for ext in $nbgrader_parts notebook_shim; do
    "$bin/jupyter" server extension disable --sys-prefix "$ext" >/dev/null 2>&1
done
"$bin/python" -m pip uninstall --quiet --yes rfc3987-syntax >/dev/null 2>&1 || true
