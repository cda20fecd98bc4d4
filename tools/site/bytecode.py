"""The kernel's wheels with their bytecode compiled in, so the browser's Python does not
compile them at every start.

The wheels the site takes from PyPI (IPython, prompt_toolkit, jedi, Pygments...) and the
course's own hold source only. A kernel in the page imports them as it starts, and CPython
compiled to WebAssembly compiles each module's source again on every page: measured with
Pyodide in Node.js, IPython, jedi, prompt_toolkit, Pygments' Python lexer and ipywidgets
imported in 5.8 s from source against 2.3 s with their bytecode there (2026-12-06).

Bytecode is tied to the exact Python that runs it, so it is made by that Python: Pyodide's
own, from the npm package the site serves, run in Node.js. Each module gets
``__pycache__/<module>.cpython-3NN.pyc`` beside its source, an *unchecked* hash-based pyc
(PEP 552): the import system takes it without comparing it with the source, whose timestamps
the wheel's unpacking does not keep. The sources stay, so a traceback still shows the lines.
The wheel's RECORD lists the new files (with no hash, as the wheel format allows for
bytecode), and the lock file gets the new wheel's sha256 (tools/site/build.py).
"""

import shutil
import sys
import tempfile
from pathlib import Path

#: Run by Pyodide's Python: each wheel of /work/in, written to /work/out with bytecode.
IN_PYODIDE = r"""
import importlib.util
import os
import sys
import warnings
import zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

warnings.simplefilter("ignore")  # (a library's invalid escapes: its own business)
SITE = f"/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"
EPOCH = (1980, 1, 1, 0, 0, 0)

def compiled(name, source):
    try:
        code = compile(source, f"{SITE}/{name}", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None  # (left to fail at import, as it would have)
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))

for wheel in sorted(os.listdir("/work/in")):
    with zipfile.ZipFile(f"/work/in/{wheel}") as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    added = []
    for info, data in members:
        if info.filename.endswith(".py"):
            pyc = compiled(info.filename, data)
            if pyc is not None:
                added.append((importlib.util.cache_from_source(info.filename), pyc))
    with zipfile.ZipFile(f"/work/out/{wheel}", "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in members:
            if info.filename.endswith(".dist-info/RECORD"):
                data = data.rstrip(b"\n") + b"\n" + "".join(f"{n},,\n" for n, _ in added).encode()
            out.writestr(info, data)
        for name, pyc in added:
            out.writestr(zipfile.ZipInfo(name, EPOCH), pyc, zipfile.ZIP_DEFLATED)
    print(f"{wheel}: {len(added)} modules compiled")
"""

#: Node.js: Pyodide from its npm folder, the work folder mounted at /work, IN_PYODIDE run.
IN_NODE = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [pyodideDir, work, code] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/` });
pyodide.FS.mkdir("/work");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: work }, "/work");
pyodide.runPython(readFileSync(code, "utf8"));
"""


def with_bytecode(wheels, pyodide, dest, run):
    """Copy each of ``wheels`` to ``dest`` with the bytecode of Pyodide's Python
    (``pyodide``: its npm package's folder) added; ``run(command)`` runs the Node.js program
    (tools/site/build.py's ``run``: the build stops if it fails)."""
    node = shutil.which("node")
    if node is None:
        sys.exit("[site] node not found: the kernel's bytecode is made by Pyodide in Node.js")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "in").mkdir()
        (work / "out").mkdir()
        for wheel in wheels:
            shutil.copy(wheel, work / "in" / wheel.name)
        (work / "compile.mjs").write_text(IN_NODE, encoding="utf-8")
        (work / "compile.py").write_text(IN_PYODIDE, encoding="utf-8")
        run([node, work / "compile.mjs", Path(pyodide).resolve(), work, work / "compile.py"])
        made = sorted(path.name for path in (work / "out").iterdir())
        if made != sorted(wheel.name for wheel in wheels):
            sys.exit(f"[site] Pyodide compiled {made}, not every kernel wheel")
        for name in made:
            shutil.copy(work / "out" / name, Path(dest) / name)
