"""The setup files agree with each other and with the README."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request

import pytest
from chromium import free_port
from processes import run_to_end, start_guarded

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _name(requirement):
    return re.split(r"[<>=!~ \[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_name(r) for r in project["dependencies"]}
    for extra in project.get("optional-dependencies", {}).values():
        names |= {_name(r) for r in extra}
    return names


def environment_names():
    names, in_deps = set(), False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if line.startswith("dependencies:"):
            in_deps = True
            continue
        if in_deps and re.match(r"^\s+- ", line):
            item = line.split("- ", 1)[1].strip()
            if item.startswith("-e") or item in ("pip", "pip:", "."):
                continue
            names.add(_name(item))
    return names - {"python", "pip"}


def test_pyproject_and_environment_name_the_same_dependencies():
    assert pyproject_names() == environment_names()


def test_environment_installs_the_package_itself():
    assert re.search(r"^\s+- (-e )?\.(\[\w+\])?\s*$", (ROOT / "environment.yml").read_text(), re.M)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "make test" in readme and "make lab" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci and "set -e" in ci


# --- the Makefile ----------------------------------------------------------------------
# These run the real Makefile: with `-o .venv/.installed` (never rebuild the venv from
# inside a test), in dry-run mode (-n), or on a copy in a temporary folder.

MAKE = shutil.which("make")
needs_make = pytest.mark.skipif(MAKE is None, reason="`make` is not installed")
#: Variables through which one make passes its settings to another.
MAKE_CONTEXT = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "ARGS")


def clean_env(**extra):
    """The environment without any make settings (this suite may itself run under make)."""
    env = {k: v for k, v in os.environ.items() if k not in MAKE_CONTEXT}
    env.update(extra)
    return env


def make(*args, cwd=ROOT, env=None, check=True):
    """Run make; returns the completed process (stdout and stderr together)."""
    done = run_to_end(
        [MAKE, "--no-print-directory", *args],
        600,
        cwd=cwd,
        env=env or clean_env(),
        stderr=subprocess.STDOUT,
    )
    if check:
        assert done.returncode == 0, done.stdout
    return done


def dry_run(*args, **kwargs):
    """What make would run, without running it and without touching .venv."""
    return make("-n", "-o", ".venv/.installed", *args, **kwargs).stdout


def test_started_by_make_sees_no_args():
    """A program started by `make test ARGS=...` finds no ARGS to pass on: a make it
    starts (the browser test runs `make app`) gets none. Run alone this always holds;
    the next test runs it under `make test`."""
    assert "ARGS" not in os.environ
    assert "ARGS=" not in os.environ.get("MAKEFLAGS", "")
    if MAKE:
        assert "test_started_by_make" not in dry_run("app", "PORT=1", env=dict(os.environ))


@pytest.mark.full  # a pytest run inside this one
@needs_make
def test_make_test_keeps_its_args_to_itself():
    probe = "tests/test_setup.py::test_started_by_make_sees_no_args"
    done = make("-o", ".venv/.installed", "test", f"ARGS=-q -p no:cacheprovider {probe}")
    assert "1 passed" in done.stdout


@needs_make
def test_lab_learner_is_rooted_among_the_learner_copies():
    learner, masters = dry_run("lab-learner"), dry_run("lab")
    assert "--ServerApp.root_dir=notebooks/learner " in learner
    assert "/lab/workspaces/learner/tree/00_start_here.ipynb" in learner
    assert (ROOT / "notebooks" / "learner" / "00_start_here.ipynb").exists()
    # Two workspaces: their names end the browser tab's title.
    assert "--ServerApp.root_dir=notebooks " in masters
    assert "/lab/workspaces/solutions/tree/00_start_here.ipynb" in masters
    # JupyterLab keeps a workspace per user by name: each clone keeps its own, so that a
    # second clone never reopens the first one's tabs (and starts their kernels).
    for command in (learner, masters):
        assert f"--LabApp.workspaces_dir={ROOT}/.venv/lab-workspaces " in command


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


@pytest.mark.full  # a real JupyterLab
@needs_make
def test_make_lab_learner_serves_only_the_learner_copies(tmp_path):
    """`make lab-learner` for real, with ARGS as the README passes them."""
    port, token = free_port(), "course-test-token"
    env = clean_env(
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
    )
    args = f"--no-browser --port {port} --ServerApp.port_retries=0 --IdentityProvider.token={token}"
    log = open(tmp_path / "lab.log", "w+")
    server = start_guarded(
        [MAKE, "--no-print-directory", "-o", ".venv/.installed", "lab-learner", f"ARGS={args}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        listing = None
        while listing is None:  # no time limit of our own: pytest-timeout guards the suite
            assert server.poll() is None, (tmp_path / "lab.log").read_text()
            try:
                listing = get_json(f"{base}/api/contents?token={token}")
            except OSError:
                time.sleep(0.5)
        # The root is the learner folder: its own files (JupyterLab hides dotfiles),
        # and no way up to the masters.
        names = {item["name"] for item in listing["content"]}
        learner = {
            p.name for p in (ROOT / "notebooks" / "learner").iterdir() if not p.name.startswith(".")
        }
        assert names == learner and "00_start_here.ipynb" in names
        with urllib.request.urlopen(
            f"{base}/lab/workspaces/learner/tree/00_start_here.ipynb?token={token}", timeout=10
        ) as page:
            assert page.status == 200
    finally:
        server.end()  # JupyterLab and its kernels, however the test ends
        log.close()
    text = (tmp_path / "lab.log").read_text()
    for noise in ("ServerApp.token", "DeprecationWarning", "Traceback"):
        assert noise not in text, text


# --- choosing the Python ------------------------------------------------------------------

FAKE_PYTHON = """#!{real}
# A stand-in for a Python of another version or installation: it runs the code
# given with -c after changing what sys reports.
import sys
sys.version_info = ({major}, {minor}, 0, "final", 0)
sys.base_prefix = {prefix!r}
exec(sys.argv[sys.argv.index("-c") + 1])
"""


def fake_python(path, major, minor, prefix):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        FAKE_PYTHON.format(real=sys.executable, major=major, minor=minor, prefix=prefix)
    )
    path.chmod(0o755)
    return path


@pytest.fixture
def course_copy(tmp_path):
    """The Makefile and the files .venv depends on, in a temporary folder, with a .venv/bin."""
    # Each pinned npm folder the Makefile installs (tools/<folder>/package-lock.json).
    npm_files = [
        str(path.relative_to(ROOT))
        for lock in sorted((ROOT / "tools").glob("*/package-lock.json"))
        for path in (lock.with_name("package.json"), lock)
    ]
    for name in (
        "Makefile",
        "pyproject.toml",
        "tools/overrides.json",
        "tools/course_jupyter.sh",
        *npm_files,
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    return tmp_path


def venv_problem(folder, *args, env=None):
    """The Makefile's VENV_PROBLEM: why it would make .venv again ('' when it would not)."""
    show = "show-venv-problem: ; @echo '[$(VENV_PROBLEM)]'"
    out = make(f"--eval={show}", "-s", "show-venv-problem", *args, cwd=folder, env=env).stdout
    return out.strip()[1:-1]


def test_the_makefile_reads_the_minimum_python_from_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    if MAKE:
        show = "show: ; @echo $(MIN_PYTHON)"
        assert make(f"--eval={show}", "-s", "show").stdout.strip() == "3.11"


@needs_make
def test_a_venv_with_a_too_old_python_is_made_again(course_copy):
    fake_python(course_copy / ".venv/bin/python", 3, 10, "/opt/python3.10")
    assert venv_problem(course_copy) == (
        "it holds Python 3.10, older than the 3.11 that pyproject.toml requires"
    )
    # ... and a dry run shows the removal.
    assert "rm -rf .venv" in make("-n", "venv", cwd=course_copy).stdout


@needs_make
def test_a_venv_whose_python_does_not_run_is_made_again(course_copy):
    broken = course_copy / ".venv/bin/python"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    assert venv_problem(course_copy) == "its Python does not run"


@needs_make
def test_python_names_the_python_of_the_venv(course_copy):
    fake_python(course_copy / ".venv/bin/python", 3, 12, "/opt/python3.12")
    # Without PYTHON=..., a working venv is kept, whichever Python made it.
    assert venv_problem(course_copy) == ""
    # With PYTHON=... naming another Python (on the command line or in the
    # environment), it is made again.
    expected = f"it holds Python 3.12 from /opt/python3.12, not PYTHON={sys.executable}"
    assert venv_problem(course_copy, f"PYTHON={sys.executable}") == expected
    assert venv_problem(course_copy, env=clean_env(PYTHON=sys.executable)) == expected


@needs_make
def test_python_naming_the_venvs_own_python_keeps_it(course_copy):
    same = course_copy / ".venv/bin/python"
    same.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    same.chmod(0o755)
    assert venv_problem(course_copy, f"PYTHON={sys.executable}") == ""


@needs_make
def test_a_too_old_python_is_refused_before_anything_is_removed(course_copy):
    fake_python(course_copy / ".venv/bin/python", 3, 12, "/opt/python3.12")
    old = fake_python(course_copy / "old" / "python3", 3, 10, "/opt/python3.10")
    done = make("venv", f"PYTHON={old}", cwd=course_copy, check=False)
    assert done.returncode != 0
    assert f"PYTHON={old} is Python 3.10; the course needs 3.11 or newer." in done.stdout
    assert "make venv PYTHON=python3.11" in done.stdout
    assert (course_copy / ".venv/bin/python").exists()


# --- the course's Jupyter settings --------------------------------------------------------


def test_course_jupyter_settings(tmp_path):
    """tools/course_jupyter.sh, run against a stand-in environment: a `python` that
    names the prefix and a `jupyter` that records what it is asked."""
    prefix, bin_dir = tmp_path / "env", tmp_path / "env" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text(f'#!/bin/sh\necho "{prefix}"\n')
    (bin_dir / "jupyter").write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/calls"\n')
    for tool in ("python", "jupyter"):
        (bin_dir / tool).chmod(0o755)
    subprocess.run(["bash", str(ROOT / "tools" / "course_jupyter.sh"), str(bin_dir)], check=True)

    overrides = prefix / "share/jupyter/lab/settings/overrides.json"
    assert overrides.read_text() == (ROOT / "tools" / "overrides.json").read_text()
    server = json.loads((prefix / "etc/jupyter/jupyter_server_config.json").read_text())
    # Kernels get CurveZMQ keys: no "Kernel is running over TCP without encryption".
    assert server["MappingKernelManager"]["transport_encryption"] == "auto"
    assert server["ServerApp"]["tornado_settings"]["websocket_max_message_size"] == 100 * 2**20
    calls = (tmp_path / "calls").read_text()
    assert "labextension disable --level=sys_prefix @jupyter/nbgrader" in calls
    assert "server extension disable --sys-prefix notebook_shim" in calls
    assert "server extension disable --sys-prefix nbgrader.server_extensions.formgrader" in calls


def test_binder_applies_the_same_settings():
    assert "bash tools/course_jupyter.sh" in (ROOT / "postBuild").read_text()


def test_the_editable_install_is_a_plain_path_entry():
    """A package at the root with package-dir {"": "."} makes setuptools write a .pth
    file instead of an import hook, and print no "Editable installation" banner."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"": "."}
    assert {name.split(".")[0] for name in setuptools["packages"]} == {"mcp_lesson"}
    pth = list((ROOT / ".venv" / "lib").glob("python3*/site-packages/__editable__.mcp_lesson*.pth"))
    if pth:  # the installed venv: one plain line naming this folder, no import hook
        assert pth[0].read_text().strip() == str(ROOT)


@needs_make
def test_make_graduate_keeps_a_package_path_with_spaces_whole(tmp_path):
    where = tmp_path / "a dir" / "it's here" / "my_mcp"
    done = make("-o", ".venv/.installed", "graduate", f"PKG={where}", check=False)
    assert f"There is no package at {where} yet" in done.stdout, done.stdout
