"""The learner's own package: the functions a learner writes, exported from the lessons.

A code cell whose first line is ``#| export`` (nbdev's marker) belongs to the
learner's package. When such a cell runs without an error in a lesson, its
Python is written into the package ``my_mcp``, in the lesson's folder (for the
learner copies: ``notebooks/learner/my_mcp/``):

* The package has one module per topic, one topic per lesson
  (:data:`mcp_lesson.exercises.registry.MODULES`): ``my_mcp/messages.py`` (lesson 02),
  ``classification.py`` (03), ``errors.py`` (04), ``conversation.py`` (06).
  A module holds its lesson's exported cells, each under a line ``# --- cell
  <id> ---`` that names the notebook cell it came from (the marker line itself
  is not written), so no lesson's work overwrites another's.
* Each module is real Python, importable on its own (``import
  my_mcp.errors``): the course writes at its top the imports it needs from the
  modules of earlier lessons (``from .classification import classify``),
  found from the names its code uses, and its ``__all__``, the public names it
  defines. They are written again whenever any module changes.
* Each exported cell is kept by the notebook cell's own id, which JupyterLab
  sends with every cell it runs: an edited cell, run again, replaces its
  earlier version, whatever it defines now. A cell that runs without the
  marker any more leaves the package, and so does a cell deleted from the
  notebook: JupyterLab names the cells deleted since the last run when it runs
  the next one, and :func:`export_notebook` rebuilds a lesson's file from the
  saved notebook's cells. How a cell is known when the front end sends no id
  (nbclient, nbval, a terminal) is said in :func:`export_cell`.
* IPython magics (``%...``, ``%%...``) and shell lines (``!...``) are not
  Python: they are left out, the cell's output says which lines in one line,
  and the rest of the cell and of the lesson is kept. IPython's own input
  transformer tells them apart from Python (:func:`python_of`).
* ``my_mcp/__init__.py`` (a few plain lines) imports the modules in the
  lessons' order and re-exports their public names (``from my_mcp import
  classify``), through ``my_mcp/_loading.py``: a module that fails to import
  is recorded in ``my_mcp.PROBLEMS`` by its file name, and the others still
  load. A package written by an earlier version of the
  course (``lesson_03.py`` and so on) is moved into the modules on the next
  export.

The package never touches :mod:`mcp_lesson`. The environment variable
``MCP_LESSON_MY_PACKAGE`` puts it elsewhere (the tests use that).

The same writer serves :func:`export_notebook`, which exports the marked
cells of a saved notebook file without running it (``make graduate`` uses it
on the masters, so their solutions are tested by the course's own tests).

Three modules share the work: :mod:`mcp_lesson.exercises.cells` reads a cell (its Python,
the names it defines, whether it is still a stub), this module writes the
package, and :mod:`mcp_lesson.exercises.carry` lets a later lesson use the
learner's own functions where they pass their check (and graduates the
package); their names are here too, where the lessons import them from.
"""

import json
import os
import re
from pathlib import Path

from mcp_lesson.exercises import registry
from mcp_lesson.exercises.cells import (  # noqa: F401  (BODY_MAGICS, STUB: at their old address)
    BODY_MAGICS,
    CODES,
    MARKER,
    STUB,
    _defined_in_order,
    _parses,
    codes_text,
    defined_names,
    is_exported,
    is_stub,
    own_codes,
    python_of,
    still_raises_at,
    used_names,
)
from mcp_lesson.exercises.on_screen import names_defined, watch, where_it_stopped

PACKAGE = "my_mcp"

ENVIRONMENT = "MCP_LESSON_MY_PACKAGE"
#: Set (to anything) by the course's own test runs, `make lessons` and
#: grading: a lesson's ``graduate()`` cell then says what it would do instead
#: of running the course's tests inside a notebook that is itself under test
#: (tests/exercises/test_graduation.py graduates the lessons' package once, for all).
#: ``make graduate`` ignores it.
NO_NESTED_RUNS = "MCP_LESSON_NO_NESTED_RUNS"


#: A cell id as nbformat allows it: 1 to 64 letters, digits, "-" and "_".
_CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The line above each part of a lesson file: ``# --- cell <id> ---`` for a
#: cell known by its id; any other ``# --- cell... ---`` line (``# --- cell
#: (no id) defining create_request ---`` for a cell run without an id, by
#: nbclient or nbconvert, or what older versions of the course wrote) starts a
#: part without an id.
_HEADER = re.compile(r"^# --- cell(?: (?P<id>[A-Za-z0-9_-]{1,64})|[^\n]*?) ---$", re.MULTILINE)


def _no_id_header(code):
    """The line above a part without an id: it names what the cell defines."""
    names = _defined_in_order(code)
    return (
        f"# --- cell (no id) defining {', '.join(names)} ---" if names else "# --- cell (no id) ---"
    )


_NOT_PYTHON = "IPython magics and shell commands are not Python"

INIT = '''\
"""{package}: your own MCP message functions, exported from the course's lessons.

Generated by the course (mcp_lesson.exercises.learner_package). The code is yours: one
module per topic ({modules}), each written when you run a lesson's exported cells.
Change them in the notebook and run the cells again.
"""

from ._loading import load_modules

#: The modules, in the order of the lessons that write them; their public names are the package's.
MODULES = {module_list!r}
#: The modules that could not be imported, {{file name: the error, in words}}; the others still load.
PROBLEMS = load_modules(__name__, MODULES, globals())
'''

#: The package's ``_loading.py``: how ``__init__`` imports the modules, each on its own.
LOADING = '''\
"""How the package's __init__ imports its modules: each on its own, so that one that cannot
be imported is named in PROBLEMS and the others still load. Written by the course."""

import importlib
import sys
from pathlib import Path


def load_modules(package, modules, names):
    """Import each module of ``modules`` (and the lesson_NN.py files of an older course) into
    the package ``package``, and put their public names in ``names`` (the package's globals);
    return {{file name: why it could not be imported}}."""
    here, problems = Path(__file__).parent, {{}}
    # The module run as a program (python -m my_mcp.server) runs on its own, not here.
    run = sys.orig_argv[sys.orig_argv.index("-m") + 1] if "-m" in sys.orig_argv[:-1] else None
    older = sorted(path.stem for path in here.glob("lesson_[0-9][0-9].py"))
    for name in list(modules) + [other for other in older if other not in modules]:
        file = here / f"{{name}}.py"
        if not file.is_file() or run == f"{{package}}.{{name}}":
            continue
        try:
            file.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            problems[file.name] = (f"not UTF-8 text (byte 0x{{exc.object[exc.start]:02x}} at "
                                   f"position {{exc.start}}); save it as UTF-8 or delete it")
            continue
        try:
            module = importlib.import_module(f".{{name}}", package)
        except SyntaxError as exc:
            where = Path(exc.filename or "").name
            what = f"a SyntaxError at line {{exc.lineno}}: {{exc.msg}}"
            problems[file.name] = what[2:] if where in ("", file.name) else f"it imports {{where}}, which has {{what}}"
            continue
        except BaseException as exc:  # an import that fails, an error while it runs...
            problems[file.name] = f"{{type(exc).__name__}}: {{exc}}"
            continue
        for public in getattr(module, "__all__", ()):
            names[public] = getattr(module, public)
    return problems
'''


class PackageFileError(ValueError):
    """A file of the learner's package that the course cannot read; the
    message is one sentence that names the file."""


def package_dir(folder=None):
    """Where the learner's package lives: ``$MCP_LESSON_MY_PACKAGE``, else
    ``my_mcp`` in ``folder`` (default: the current directory, a notebook's own)."""
    if os.environ.get(ENVIRONMENT):
        return Path(os.environ[ENVIRONMENT])
    return Path(folder or Path.cwd()) / PACKAGE


def _read_parts(path):
    """The parts of one lesson file, in order, as ``[[cell id or None, code]]``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except UnicodeDecodeError:
        raise PackageFileError(
            f"{path.parent.name}/{path.name} is not UTF-8 text, so this cell cannot be added to "
            f"it: save it as UTF-8, or delete it and run the lesson's {MARKER} cells again"
        ) from None
    found = list(_HEADER.finditer(text))
    parts = []
    for match, after in zip(found, found[1:] + [None]):
        code = text[match.end() : after.start() if after else len(text)].strip("\n")
        if is_exported(code):  # a part that an older version of the course wrote
            code = code.lstrip().partition("\n")[2].strip("\n")
        parts.append([match.group("id"), code])
    return parts


def _write_parts(path, lesson, parts):
    """Write a module's parts, then the import lines of every module of the package."""
    _write_module(path, lesson, parts, "")
    _link_modules(path.parent)


def _write_module(path, lesson, parts, links):
    head = (
        f"# Lesson {lesson}'s exported cells, written by the course when they ran.\n"
        "# Change them in the notebook, not here: running a cell rewrites its part.\n"
    )
    body = "".join(
        f"\n{f'# --- cell {cell_id} ---' if cell_id else _no_id_header(code)}\n{code}\n"
        for cell_id, code in parts
    )
    text = head + links + body
    if not path.exists() or path.read_bytes() != text.encode("utf-8"):
        path.write_text(text, encoding="utf-8")


_LINKS_START = (
    "# --- written by the course: what this module takes from earlier lessons, and gives ---"
)
_LINKS_END = "# --- end of what the course writes ---"


def _in_order(parts):
    """The names the parts define, in the order they first appear."""
    names = []
    for _, code in parts:
        for name in _defined_in_order(code):
            if name not in names:
                names.append(name)
    return names


def package_modules(package):
    """``[(lesson, path)]``: the modules of the package folder ``package``, in the
    lessons' order (a lesson the registry has no topic for writes ``lesson_NN.py``)."""
    found = {lesson: Path(package) / f"{module}.py" for lesson, module in registry.MODULES.items()}
    for path in Path(package).glob("lesson_[0-9][0-9].py"):
        found.setdefault(path.stem[-2:], path)
    return [(lesson, found[lesson]) for lesson in sorted(found) if found[lesson].exists()]


def _link_modules(package):
    """Write, at the top of each module, the imports it needs from the modules
    of earlier lessons and its ``__all__``: explicit imports, so that each
    module imports on its own (``import my_mcp.errors``)."""
    given = {}  # name -> the latest earlier module that defines it
    for lesson, path in package_modules(package):
        try:
            parts = _read_parts(path)
        except PackageFileError:
            continue  # said when that module's own cells are exported
        defined = _in_order(parts)
        code = "\n".join(code for _, code in parts)
        needed = sorted((used_names(code) - set(defined)) & set(given))
        by_module = {}
        for name in needed:
            by_module.setdefault(given[name], []).append(name)
        lines = [f"from .{module} import {', '.join(names)}" for module, names in by_module.items()]
        public = [name for name in defined if not name.startswith("_")]
        lines.append(f"__all__ = {public!r}")
        links = f"{_LINKS_START}\n" + "\n".join(lines) + f"\n{_LINKS_END}\n"
        _write_module(path, lesson, parts, links)
        for name in defined:
            given[name] = registry.module_of(lesson)


def _prepare(package, codes_file=None):
    """The package folder, made if need be, with ``__init__.py`` as the course writes it."""
    package = Path(package) if package else package_dir()
    package.mkdir(parents=True, exist_ok=True)
    init = package / "__init__.py"
    modules = list(registry.MODULES.values())
    text = INIT.format(package=PACKAGE, modules=", ".join(modules), module_list=modules)
    if not init.exists() or init.read_bytes() != text.encode("utf-8"):
        init.write_text(text, encoding="utf-8")
    codes = package / f"{CODES}.py"
    wanted = codes_text() if codes_file is None else codes_file
    for path, text in ((codes, wanted), (package / "_loading.py", LOADING.format())):
        if not path.exists() or path.read_bytes() != text.encode("utf-8"):
            path.write_text(text, encoding="utf-8")
    for lesson, module in registry.MODULES.items():  # a package of an earlier course version
        old, new = package / f"lesson_{lesson}.py", package / f"{module}.py"
        if old.exists() and not new.exists():
            old.rename(new)
    return package


def _valid_id(cell_id):
    return cell_id if isinstance(cell_id, str) and _CELL_ID.fullmatch(cell_id) else None


def _place(parts, cell_id, code):
    """Put cell ``cell_id``'s ``code`` into ``parts`` (see :func:`export_cell`)."""
    if cell_id is None and any(part_code == code for _, part_code in parts):
        return  # the same cell run again unchanged, as nbval does after export_notebook
    names = defined_names(code)

    def earlier_version(part):
        part_id, part_code = part
        if cell_id is not None and part_id == cell_id:
            return True
        # Without an id on one side, a part that defines one of the cell's
        # names is taken for an earlier version of it.
        return (part_id is None or cell_id is None) and bool(names & defined_names(part_code))

    at = next((i for i, part in enumerate(parts) if earlier_version(part)), len(parts))
    parts[:] = (
        [part for part in parts[:at] if not earlier_version(part)]
        + [[cell_id, code]]
        + [part for part in parts[at:] if not earlier_version(part)]
    )


def _earlier(parts, cell_id, code):
    """The code of the earlier version of this cell in ``parts`` (as :func:`_place`
    would replace it), or None."""
    names = defined_names(code)
    for part_id, part_code in parts:
        if cell_id is not None and part_id == cell_id:
            return part_code
        if (part_id is None or cell_id is None) and names & defined_names(part_code):
            return part_code
    return None


def _lines_said(left_out):
    said = [
        f"line {number}, `{line if len(line) <= 40 else line[:37] + '...'}`"
        for number, line in left_out
    ]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + ", and " + said[-1]


def _export(source, lesson, package=None, cell_id=None):
    """Export one cell; return (the lesson file, the line to say about it, or None)."""
    cell_id = _valid_id(cell_id)
    package = _prepare(package)
    path = package / f"{registry.module_of(lesson)}.py"
    where = f"{package.name}/{path.name}"
    code, left_out = python_of(source)
    code = own_codes(code)
    parts = _read_parts(path)
    if left_out and not _parses(code):
        parts = [part for part in parts if cell_id is None or part[0] != cell_id]
        _write_parts(path, lesson, parts)
        what = "it has no Python" if not code.strip() else "it is not Python"
        return path, (
            f"{where} leaves this cell out: without {_lines_said(left_out)}, {what} ({_NOT_PYTHON})"
        )
    earlier = _earlier(parts, cell_id, code)
    if is_stub(code) and earlier is not None and not is_stub(earlier):
        # A released stub run again (the lesson's own copy, not the learner's):
        # it must never replace the learner's work.
        return path, (
            f"not exported: this cell is still the released stub (raise "
            f"NotImplementedError()); {where} keeps your earlier version of it"
        )
    _place(parts, cell_id, code)
    _write_parts(path, lesson, parts)
    if cell_id is not None:
        _RAN_AT[str(path.resolve()), cell_id] = _now()
    if left_out:
        return path, f"exported to {where} without {_lines_said(left_out)}: {_NOT_PYTHON}"
    unwritten = still_raises_at(source)
    if unwritten and earlier is not None and not is_stub(earlier):
        # What is on the screen goes into the package, said truthfully: a part not written yet.
        return path, (
            f"exported to {where} in place of your earlier version: this cell is half "
            f"written (line {unwritten} still raises NotImplementedError), so that part "
            "counts as not written yet"
        )
    return path, None


#: When each cell's version in the package ran, by (the module's path, the cell's id): HH:MM.
_RAN_AT: dict = {}


def _now():
    import datetime

    return datetime.datetime.now().strftime("%H:%M")


def _not_exported(result, lesson, cell_id):
    """The line for an exported cell that stopped with an error: it was not exported, where
    it stopped and with what, and what the package keeps instead (the version that ran, and
    when, where that is known)."""
    error = result.error_before_exec or result.error_in_exec
    what, line = where_it_stopped(error)
    stopped = (
        f"this cell stopped at line {line} with {what}"
        if line
        else f"this cell stopped with {what}"
    )
    path = package_dir() / f"{registry.module_of(lesson)}.py"
    where = f"{PACKAGE}/{path.name}"
    names = set(names_defined(getattr(result.info, "raw_cell", "") or ""))
    try:  # the cell's earlier version: by its id, else (no id) a part that defines its names
        kept = any(
            part_id == cell_id
            if cell_id is not None
            else (part_id is None and names & defined_names(code))
            for part_id, code in _read_parts(path)
        )
    except (OSError, PackageFileError):
        kept = False
    if kept:
        ran = _RAN_AT.get((str(path.resolve()), cell_id))
        version = (
            f"the version you ran at {ran}" if ran else "the version of this cell you ran before"
        )
        return f"not exported: {stopped}; {where} keeps {version}"
    return f"not exported: {stopped}; it goes into {where} once it runs without an error"


def export_cell(source, lesson, package=None, *, cell_id=None):
    """Write one exported cell's ``source`` into lesson ``lesson``'s file of the
    package folder ``package`` (default: :func:`package_dir`); return its path.

    ``cell_id`` is the notebook cell's id: the part with the same id, the
    cell's earlier version, is replaced, whatever either defines. A cell
    without an id (nbclient and nbval send none, nor does IPython in a
    terminal) is known by what it defines instead: it replaces every part that
    defines one of its names, so an edited cell still replaces its earlier
    version, but of two cells that define the same name only the one run last
    is kept; a cell whose code is already in the file leaves the file as it
    is; a cell that defines no names (imports only) is known by its code, so
    each different one is kept. Without an id, a cell that is unmarked or
    deleted stays in the package until :func:`export_notebook` rebuilds the
    lesson's file from the saved notebook.

    Magics and shell lines are left out (see :func:`python_of`); a cell that
    is not Python without them is left out whole, and so is its earlier
    version. Raises :class:`PackageFileError` when the lesson's file is not
    UTF-8 text, and leaves that file as it is.
    """
    return _export(source, lesson, package, cell_id)[0]


def _forget(lesson, cell_ids, package=None):
    """Take the parts of the cells ``cell_ids`` out of lesson ``lesson``'s file."""
    path = (Path(package) if package else package_dir()) / f"{registry.module_of(lesson)}.py"
    if not path.exists():
        return
    parts = _read_parts(path)
    kept = [part for part in parts if part[0] is None or part[0] not in cell_ids]
    if kept != parts:
        _write_parts(path, lesson, kept)


def export_notebook(notebook, package=None, codes_file=None):
    """Rebuild lesson ``NN``'s file in the package folder ``package`` (default:
    :func:`package_dir`) from the marked cells of the saved notebook file
    ``notebook`` (named ``NN_...ipynb``), without running it.

    The file then holds the notebook's marked cells as they are now, in the
    notebook's order and known by their ids: a cell that is no longer in the
    notebook, or no longer marked, is no longer in the file. Returns the
    lesson file, or None when the notebook has no marked cells and there is
    no file to empty. ``codes_file`` is the text of the package's ``codes.py``
    (default: a copy of the course's, :func:`codes_text`).
    """
    notebook = Path(notebook)
    lesson = notebook.name[:2]
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    parts = []
    for cell in cells:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] != "code" or not is_exported(source):
            continue
        code, left_out = python_of(source)
        if not left_out or _parses(code):  # every one, in order, as running them would
            parts.append([_valid_id(cell.get("id")), own_codes(code)])
    path = (Path(package) if package else package_dir()) / f"{registry.module_of(lesson)}.py"
    if not parts and not path.exists():
        return None
    _prepare(package, codes_file)
    _write_parts(path, lesson, parts)
    return path


_HOOKED: dict = {}
_LESSON = {"now": None}


def current_lesson():
    """The lesson whose :func:`start_lesson` ran last in this process ("03"), or None."""
    return _LESSON["now"]


def start_lesson(lesson):
    """Called at the top of a lesson: from now on, every ``#| export`` cell that
    runs without an error is written into the learner's package.

    A cell's id is IPython's ``result.info.cell_id``: ipykernel takes it from
    the ``cellId`` that JupyterLab puts in the metadata of each request to run
    a cell. Next to it JupyterLab sends ``deletedCells``, the ids of the cells
    deleted since the last run, which recent IPython and ipykernel pass on as
    ``result.info.cell_meta`` (older ones do not: a deleted cell then stays
    until :func:`export_notebook`). A cell that runs unmarked, and a deleted
    cell, leave the package. When there is no id (nbclient, nbval, a
    terminal), see :func:`export_cell`. What goes wrong with the package is
    said in one line, never with a traceback.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - outside IPython there is nothing to hook
        return
    shell = get_ipython()
    if shell is None:
        return
    _LESSON["now"] = str(lesson)
    previous = _HOOKED.pop(id(shell), None)
    if previous is not None:
        shell.events.unregister("post_run_cell", previous)

    def export_after_run(result):
        info = result.info
        source = getattr(info, "raw_cell", None) or ""
        cell_id = _valid_id(getattr(info, "cell_id", None))
        metadata = getattr(info, "cell_meta", None)
        deleted = metadata.get("deletedCells") if isinstance(metadata, dict) else None
        gone = [i for i in deleted if isinstance(i, str)] if isinstance(deleted, list) else []
        exported = is_exported(source)
        if not exported and cell_id is not None:
            gone.append(cell_id)
        try:
            if gone:
                try:
                    _forget(lesson, gone)
                except PackageFileError:  # said only when this cell is to be exported
                    if exported and result.success:
                        raise
            if exported and result.success:
                said = _export(source, lesson, cell_id=cell_id)[1]
                if said:
                    print(said)
            elif exported:
                print(_not_exported(result, lesson, cell_id))
        except PackageFileError as exc:
            print(exc)
        except OSError as exc:
            print(f"(could not write your package: {exc})")

    shell.events.register("post_run_cell", export_after_run)
    _HOOKED[id(shell)] = export_after_run
    watch()  # a check then says when the cell on screen did not run (on_screen.py)
    print(
        f"Cells marked {MARKER} go into your package {PACKAGE}/{registry.module_of(lesson)}.py "
        "when they run."
    )
