"""Build the course as a static JupyterLite site (``make site``, into build/site/).

JupyterLite runs JupyterLab and a Python kernel (Pyodide: CPython compiled to
WebAssembly) in the browser, from static files. The site built here needs no
server but a static one and no network: every file the page and the kernel
load is in the site.

What goes in, and from where:

* Pyodide from the npm package (tools/site/package.json and its lock), put at
  ``static/pyodide/`` of the lite directory, where jupyterlite-pyodide-kernel
  finds it, copies it and points the kernel at it.
* The npm package has Pyodide but none of its wheels. The kernel's start-up
  wheels (micropip, IPython and its dependencies, jedi, parso) come from PyPI at
  the exact versions ``pyodide-lock.json`` names. PyPI's files are not
  byte-identical to Pyodide's builds, and Pyodide checks every wheel's sha256
  against the lock file, so the lock file is rewritten for the downloaded
  files. It keeps only the packages the site holds.
* comm and ipywidgets (tools/site/kernel-wheels.txt) and the course's own
  wheel, built from this checkout, are added to the lock file and loaded as the
  kernel starts (``loadPyodideOptions.packages`` in tools/site/jupyter-lite.json),
  so ``import mcp_lesson`` works in every lesson with no ``%pip`` cell.
  The package guards json against deep nesting itself when it runs in the
  browser (mcp_lesson/protocol/deep_json.py), so the site adds nothing for that.
* Every one of those wheels gets the bytecode of Pyodide's own Python beside
  its sources (tools/site/bytecode.py, run in Node.js), so a kernel does not
  compile them again each time it starts.
* ``disablePyPIFallback``: the kernel never asks PyPI for a package.
* The lessons: the masters at the top, the learner copies in ``learner/``, as
  in notebooks/. Their kernel is the site's (Pyodide's ``python``). Lessons 06
  and 07 start a real MCP server as a subprocess, which WebAssembly cannot do:
  the site's copies open with a note saying so (the files in notebooks/ are
  never changed). Lesson 08 needs no subprocess and runs as it is.
* A notice while Python starts (tools/site/kernel-notice.js, put into the
  site's lab/index.html): a kernel takes seconds to start, up to a minute or
  more on a slow or busy computer, and JupyterLab itself only shows the status
  "Unknown" meanwhile.

The build tools (tools/site/requirements.txt, pinned) are installed in their
own virtual environment, build/site-cache/venv: ``jupyter lite build`` copies
every JupyterLab extension of the environment it runs in into the site, and
the course's .venv has some (nbgrader, voila) that have no place there.

When the inputs (this folder, the package, pyproject.toml, the lessons) have
not changed since the last build, nothing is done: their digest is kept in
build/site-cache/site.sha256. A site built from the same inputs in another
checkout is copied, not built again (tools/site/kept_sites.py). ``--force`` builds anyway.

What remains and why. jupyterlite-pyodide-kernel's PyodideLockAddon
(``--pyodide-lock``, with its ``[lock]`` extra: pyodide-lock and uv) could
write the lock entries of comm and ipywidgets from their wheels' metadata
(``--pyodide-lock-specs``) in place of lock_entry() and its hand-written
dependencies; not the course's own entry, since its wheel names what the local
install needs (JupyterLab, Voila, the mcp SDK), where the browser needs only
ipywidgets. It is not used because the site would then need the network: the
npm Pyodide has no wheels, so the addon takes it for a partial distribution
with the jsDelivr CDN as its base URL, and points at the CDN every package of
the lock that has no local file, which includes any wheel left at the lock's
sha256 (pyodide-lock downloads none of those); the other 341 packages of
Pyodide 314.0.6's lock stay in it as well. Even then closure() would be
needed, to name all 15 start-up packages in ``--pyodide-lock-specs``. So
kernel_packages() keeps its own download, sha256 rewrite and trimming of the
lock file.

Usage: python tools/site/build.py [--force]
"""

import argparse
import fcntl
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: the project's root
    sys.path.insert(0, str(ROOT))
from tools.site import bytecode, kept_sites  # noqa: E402  (after sys.path is set)

HERE = ROOT / "tools" / "site"
OUTPUT = ROOT / "build" / "site"
CACHE = ROOT / "build" / "site-cache"
STAMP = CACHE / "site.sha256"


def _local_only():
    """The lessons' table's LOCAL_ONLY (mcp_lesson/exercises/lessons.py imports nothing)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "course_lessons", ROOT / "mcp_lesson" / "exercises" / "lessons.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.LOCAL_ONLY)


#: Lessons that cannot run in the browser, and why: their site copies open with
#: a note (NOTE) saying so. The masters in notebooks/ stay as they are. (The lessons'
#: table, mcp_lesson/exercises/lessons.py, says which, read here without importing the course.)
NEEDS_LOCAL_INSTALL = _local_only()

NOTE = """\
> **This lesson needs the course installed on your computer.** In the browser \
you can read it, with the outputs it printed when it was last run, but not run \
it: {why} The Python in this page is compiled to WebAssembly and runs inside \
your browser, and WebAssembly has no way to start another process.
>
> To run it: install the course locally (Python 3.11 or newer, then `make lab` \
in a copy of the course's repository, as its README says) and open this \
lesson there. Lessons 00 to 05 and 08 run here in full.
"""

WELCOME = """\
> **The course in your browser.** Nothing to install: Python runs inside this \
page (Pyodide), with the course's package `mcp_lesson` already loaded. Each \
time you open a notebook, Python starts in the page: a note at the bottom says \
so until it is ready, which can take a minute the first time. What you \
change is kept in this browser's storage, on this computer only: use \
*File > Download* to keep a copy. Work in the learner copies (the folder \
`learner/`); the notebooks at the top hold the worked solutions.
"""

#: The site's kernel: Pyodide's, registered by jupyterlite-pyodide-kernel.
KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
#: What the in-browser kernel (jupyterlite-pyodide-kernel 0.8) reports of its language, as
#: JupyterLab writes it into a notebook when the kernel starts: a lesson that says so
#: already opens unmodified (seen in headless Chromium: "version" is the kernel's fixed
#: "3.8", not Pyodide's Python).
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "python", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.8",
}

#: Pyodide's files that a page never loads (type declarations, demo consoles).
PYODIDE_SKIP = re.compile(r"(\.map|\.d\.ts|^README\.md|^console.*\.html|^package\.json)$")

#: The packages the kernel loads before its first cell (their dependencies follow).
KERNEL_ROOTS = ("micropip", "ipython", "jedi")

#: The script that says so while a notebook's Python starts, and where it goes.
KERNEL_NOTICE = HERE / "kernel-notice.js"
KERNEL_NOTICE_PAGE = Path("lab") / "index.html"


# --- small helpers ------------------------------------------------------------------


def say(text):
    print(f"[site] {text}", flush=True)


def run(command, log=None, **kwargs):
    """Run a command, its output going to ours (or to ``log``, shown if it fails);
    stop the build if it fails."""
    command = [str(part) for part in command]
    if log is None:
        result = subprocess.run(command, **kwargs)
    else:
        with open(log, "w") as out:
            result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, **kwargs)
    if result.returncode != 0:
        if log is not None:
            print(Path(log).read_text()[-4000:], file=sys.stderr)
        sys.exit(f"[site] failed ({result.returncode}): {' '.join(command)}")


def normalize(name):
    """A package name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def digest_of(paths):
    """One sha256 over the paths (relative to the checkout) and their contents."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def inputs():
    """Every file the site is built from."""
    found = [
        path
        for path in HERE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and "node_modules" not in path.parts
    ]
    found += [
        path
        for path in (ROOT / "mcp_lesson").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]
    found += [
        ROOT / name
        for name in ("pyproject.toml", "README.md", "LICENSE", "LICENSE-LESSONS.md")
        if (ROOT / name).exists()
    ]
    found += sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    found += sorted((ROOT / "notebooks" / "learner").glob("[0-9][0-9]_*.ipynb"))
    return found


def pins(path):
    """The ``name==version`` lines of a requirements file, comments dropped."""
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    return [line for line in lines if line]


# --- the tools --------------------------------------------------------------------


def build_tools():
    """build/site-cache/venv with tools/site/requirements.txt; its Python."""
    env = CACHE / "venv"
    python = env / "bin" / "python"
    requirements = HERE / "requirements.txt"
    stamp = env / ".requirements.sha256"
    wanted = sha256_of(requirements)
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    say(
        f"installing the build tools into {env.relative_to(ROOT)} (pinned: {requirements.relative_to(ROOT)})"
    )
    shutil.rmtree(env, ignore_errors=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(env)
    run([python, "-m", "pip", "install", "-qq", "--disable-pip-version-check", "-r", requirements])
    stamp.write_text(wanted)
    return python


def pyodide_package():
    """The npm package's folder: ``npm ci`` with the committed lock file, when stale."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit(
            "[site] npm not found: the site takes Pyodide from its npm package "
            "(Debian/Ubuntu: apt-get install nodejs npm)"
        )
    folder = CACHE / "npm"
    stamp = folder / ".package.sha256"
    files = [HERE / "package.json", HERE / "package-lock.json"]
    wanted = digest_of(files)
    package = folder / "node_modules" / "pyodide"
    if not (stamp.exists() and stamp.read_text() == wanted and (package / "pyodide.mjs").exists()):
        say("installing Pyodide from npm (tools/site/package-lock.json)")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for path in files:
            shutil.copy(path, folder)
        run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
        )
        stamp.write_text(wanted)
    return package


def download_wheels(requirements, dest):
    """Pure-Python wheels for Pyodide's Python (3.14) from PyPI, without dependencies.

    pip keeps a file already in ``dest``, so a warm cache downloads nothing.
    """
    dest.mkdir(parents=True, exist_ok=True)
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-qq",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            "3.14",
            "--implementation",
            "py",
            "--abi",
            "none",
            "--platform",
            "any",
            "--dest",
            dest,
            *requirements,
        ]
    )


def wheel_for(folder, name, version):
    """The wheel of ``name`` ``version`` in ``folder``."""
    for path in folder.glob("*.whl"):
        wheel_name, wheel_version = path.name.split("-")[:2]
        if normalize(wheel_name) == normalize(name) and wheel_version == version:
            return path
    sys.exit(f"[site] no wheel of {name} {version} in {folder}")


def course_wheel(python, dest):
    """The course's wheel, built from this checkout (``pip wheel --no-deps``).

    It is built from a copy of the files a wheel is made from, so the build
    leaves nothing in the checkout.
    """
    for old in dest.glob("mcp_lesson-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "mcp_lesson"
        source.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE", "LICENSE-LESSONS.md"):
            if (ROOT / name).exists():
                shutil.copy(ROOT / name, source)
        shutil.copytree(
            ROOT / "mcp_lesson", source / "mcp_lesson", ignore=shutil.ignore_patterns("__pycache__")
        )
        run(
            [
                python,
                "-m",
                "pip",
                "wheel",
                "-qq",
                "--disable-pip-version-check",
                "--no-deps",
                "--no-build-isolation",
                "--wheel-dir",
                dest,
                source,
            ]
        )
    [wheel] = dest.glob("mcp_lesson-*.whl")
    return wheel


# --- the kernel's packages --------------------------------------------------------


def closure(packages, roots):
    """The lock file's names of ``roots`` and everything they depend on."""
    found, todo = [], list(roots)
    while todo:
        name = normalize(todo.pop())
        if name not in found:
            found.append(name)
            todo += packages[name]["depends"]
    return sorted(found)


def lock_entry(wheel, name, version, imports, depends):
    return {
        "name": name,
        "version": version,
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": sha256_of(wheel),
        "package_type": "package",
        "imports": imports,
        "depends": depends,
        "unvendored_tests": False,
    }


def kernel_packages(python, pyodide, pyodide_dir):
    """Put the kernel's wheels in ``pyodide_dir`` and write its pyodide-lock.json.

    Returns the wheels' names and versions, for the report.
    """
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    packages = {normalize(name): entry for name, entry in lock["packages"].items()}
    start_up = closure(packages, KERNEL_ROOTS)
    wheels = CACHE / "wheels"
    extra = pins(HERE / "kernel-wheels.txt")
    say(
        f"kernel wheels from PyPI: {len(start_up)} at the lock file's versions, "
        f"{len(extra)} from tools/site/kernel-wheels.txt"
    )
    download_wheels(
        [f"{packages[name]['name']}=={packages[name]['version']}" for name in start_up] + extra,
        wheels,
    )

    kept = {}
    for name in start_up:
        entry = dict(packages[name])
        wheel = wheel_for(wheels, entry["name"], entry["version"])
        entry.update(file_name=wheel.name, sha256=sha256_of(wheel))
        kept[name] = (entry, wheel)
    for requirement in extra:
        name, version = requirement.split("==")
        wheel = wheel_for(wheels, name, version)
        depends = {"comm": [], "ipywidgets": ["comm", "ipython", "traitlets"]}[normalize(name)]
        kept[normalize(name)] = (lock_entry(wheel, name, version, [name], depends), wheel)

    ours = course_wheel(python, CACHE / "dist")
    version = ours.name.split("-")[1]
    kept["mcp-lesson"] = (
        lock_entry(ours, "mcp-lesson", version, ["mcp_lesson"], ["ipywidgets"]),
        ours,
    )

    bytecode.with_bytecode(
        [wheel for _entry, wheel in kept.values()],
        pyodide,
        pyodide_dir,
        lambda command: run(command, log=CACHE / "bytecode.log"),
    )
    for entry, wheel in kept.values():
        entry["sha256"] = sha256_of(pyodide_dir / wheel.name)
    lock["packages"] = {name: entry for name, (entry, _wheel) in sorted(kept.items())}
    (pyodide_dir / "pyodide-lock.json").write_text(json.dumps(lock, indent=1) + "\n")
    return [f"{entry['name']} {entry['version']}" for entry, wheel in kept.values()]


# --- the lessons ------------------------------------------------------------------


def markdown_cell(text, cell_id="site-note"):
    """A text cell, with the id nbformat 4.5 asks for (JupyterLab adds one to a cell
    without, and the notebook then opens marked as modified)."""
    return {
        "cell_type": "markdown",
        "id": cell_id,
        "metadata": {},
        "source": text.splitlines(keepends=True),
    }


def site_copy(source, dest, note=None):
    """Copy a lesson for the site: Pyodide's kernel, and ``note`` as its first cell."""
    notebook = json.loads(source.read_text(encoding="utf-8"))
    notebook.setdefault("metadata", {})["kernelspec"] = dict(KERNELSPEC)
    notebook["metadata"]["language_info"] = json.loads(json.dumps(LANGUAGE_INFO))
    if note:
        notebook["cells"].insert(0, markdown_cell(note))
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def lessons(files):
    """The site's lessons: masters at the top, learner copies in learner/."""
    count = 0
    for folder, target in (
        (ROOT / "notebooks", files),
        (ROOT / "notebooks" / "learner", files / "learner"),
    ):
        for source in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
            if source.name in NEEDS_LOCAL_INSTALL:
                note = NOTE.format(why=NEEDS_LOCAL_INSTALL[source.name])
            elif source.name.startswith("00_"):
                note = WELCOME
            else:
                note = None
            site_copy(source, target / source.name, note)
            count += 1
    return count


# --- the build --------------------------------------------------------------------


def lite_dir(python):
    """The lite directory jupyter lite build reads, made afresh."""
    lite = CACHE / "lite"
    shutil.rmtree(lite, ignore_errors=True)
    pyodide_dir = lite / "static" / "pyodide"
    pyodide_dir.mkdir(parents=True)
    pyodide = pyodide_package()
    for path in pyodide.iterdir():
        if (
            path.is_file()
            and not PYODIDE_SKIP.search(path.name)
            and path.name != "pyodide-lock.json"
        ):
            shutil.copy(path, pyodide_dir / path.name)
    wheels = kernel_packages(python, pyodide, pyodide_dir)
    shutil.copy(HERE / "jupyter-lite.json", lite / "jupyter-lite.json")
    count = lessons(lite / "files")
    return lite, wheels, count


def add_kernel_notice(output):
    """Put tools/site/kernel-notice.js into the site's page, as its last script."""
    page = output / KERNEL_NOTICE_PAGE
    html = page.read_text(encoding="utf-8")
    if html.count("</body>") != 1:
        sys.exit(f"[site] {page} has no single </body>: where does the kernel notice go?")
    script = f'<script id="course-kernel-notice-script">\n{KERNEL_NOTICE.read_text()}</script>\n'
    page.write_text(html.replace("</body>", script + "</body>"), encoding="utf-8")


def size_of(folder):
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def build(force=False):
    wanted = digest_of(inputs())
    if (
        not force
        and STAMP.exists()
        and STAMP.read_text() == wanted
        and (OUTPUT / "index.html").exists()
    ):
        say(f"{OUTPUT.relative_to(ROOT)} is up to date (its inputs have not changed)")
        return False
    if not force and kept_sites.restore(wanted, OUTPUT):
        STAMP.write_text(wanted)
        say(
            f"{OUTPUT.relative_to(ROOT)} copied from {kept_sites.store()} (built before from the same inputs)"
        )
        return False
    started = time.monotonic()
    STAMP.unlink(missing_ok=True)
    python = build_tools()
    lite, wheels, count = lite_dir(python)
    say(f"{count} lessons; kernel packages: {', '.join(wheels)}")
    shutil.rmtree(OUTPUT, ignore_errors=True)
    jupyter = python.parent / "jupyter"
    say("jupyter lite build (its output: build/site-cache/lite-build.log)")
    run(
        [
            jupyter,
            "lite",
            "build",
            "--lite-dir",
            lite,
            "--output-dir",
            OUTPUT,
            "--contents",
            lite / "files",
            "--apps",
            "lab",
            "--no-unused-shared-packages",
            "--no-sourcemaps",
        ],
        log=CACHE / "lite-build.log",
        cwd=lite,
    )
    add_kernel_notice(OUTPUT)
    STAMP.write_text(wanted)
    kept_sites.keep(wanted, OUTPUT)
    say(
        f"built {OUTPUT.relative_to(ROOT)}: {size_of(OUTPUT) / 1e6:.1f} MB "
        f"in {time.monotonic() - started:.0f} s"
    )
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even if nothing changed")
    args = parser.parse_args(argv)
    CACHE.mkdir(parents=True, exist_ok=True)
    # Two builds at once (make site beside make test) take turns.
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        build(force=args.force)


if __name__ == "__main__":
    main()
