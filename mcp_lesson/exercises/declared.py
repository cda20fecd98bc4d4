"""The graded exercises as the lesson masters declare them: an exercise is declared
once, in its lesson's master, as a solution cell (nbgrader's ``grade_id``, the function's
name; ``#| export`` when it goes into the package) and a graded test cell (``grade_id``
"<name>-tests", its points, its visible cases, then its hidden ones after ``### BEGIN HIDDEN
TESTS``). Everything else is read from there:

* :func:`rules`: the rules each lesson teaches, declared beside its prose (:data:`TEACHES`);
* :func:`points`: each lesson's points (nbgrader's maximum score), and so the course's;
* :func:`read`: the graded exercises, with the visible cases of each graded cell
  (:func:`visible_calls`: the ``try_it`` and ``expect`` calls it makes), from which
  :func:`write` makes mcp_lesson/core/graded.py (``make export``), the data the registry's
  derived rows are made of (:mod:`mcp_lesson.exercises.registry`), so that the package
  needs no masters at hand (an installed package, the in-browser site).

It reads notebook files as JSON and runs nothing but the visible part of a graded cell, with
stand-ins for the functions it grades that only record how they are called.
"""

import ast
import json
import pprint
import re
from pathlib import Path
from typing import NamedTuple

from mcp_lesson.exercises import lessons as _lessons

HIDDEN = "### BEGIN HIDDEN TESTS"
EXPORT = "#| export"
#: The words every graded cell starts with, and the points they name.
SAID = "# Graded tests for "
#: What the first line of a graded cell says of a lesson's step: "# Graded tests for is_object, a
#: step of classify (1 point)" (or "..., steps of create_request (2 points)" for two): a function
#: the lesson builds on the way to another, which graduation judges through that one.
STEP = re.compile(r", (?:a step|steps) of (\w+) \(")


class Exercise(NamedTuple):
    """One graded exercise of a master."""

    #: The solution cell's grade_id: the function the learner writes.
    name: str
    #: The lesson ("04") and the master's file name.
    lesson: str
    notebook: str
    #: True when the solution cell is ``#| export`` (it goes into the learner's package).
    exported: bool
    #: The functions the solution cell defines (``def``), in order.
    functions: tuple
    #: The points of its graded cell ("<name>-tests"), and that cell's code before its hidden
    #: tests (its visible part).
    points: float
    visible: str
    #: The names of each defined function's parameters, by function.
    parameters: dict = {}
    #: The function it is a step of, as the graded cell's first line says (:data:`STEP`), or None.
    step_of: str | None = None
    #: "name(parameters)" of each function of the solution cell the learner writes (its body
    #: holds the solution: the learner copy has a stub there), in order.
    written: tuple = ()


class Declared(NamedTuple):
    """One function of the package, as mcp_lesson/core/graded.py holds it (:func:`table`): a
    function an exported solution cell defines and its graded cell's visible part checks."""

    name: str
    lesson: str
    #: The exercise (the solution cell's grade_id) whose graded cell checks it.
    exercise: str
    #: That cell's points, for the exercise's own function (0 for another function of its cell).
    points: float
    #: Its parameters' names, as the master writes them.
    parameters: tuple
    #: The function it is a step of (:data:`STEP`), or None.
    step_of: str
    #: The visible calls of it: ``(args, kwargs, expected)`` (:func:`visible_calls`).
    calls: list


def masters_folder():
    """The lesson masters (notebooks/ beside the package, in a checkout), or None."""
    folder = Path(__file__).resolve().parents[2] / "notebooks"
    return folder if folder.is_dir() else None


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _grading(cell):
    grading = cell.get("metadata", {}).get("nbgrader", {})
    return grading if isinstance(grading, dict) else {}


def _cells(folder):
    """(lesson number, file name, cells) of each master in ``folder``, in the lessons' order."""
    for lesson in _lessons.LESSONS:
        path = Path(folder) / lesson.filename
        if path.exists():
            yield (
                lesson.number,
                lesson.filename,
                json.loads(path.read_text(encoding="utf-8"))["cells"],
            )


def _defined(source):
    """``{name: its parameters' names}`` of each function ``source`` defines, in order."""
    try:
        tree = ast.parse(
            "\n".join(line for line in source.splitlines() if not line.startswith("#|"))
        )
    except SyntaxError:
        return {}
    return {
        node.name: tuple(
            arg.arg for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        )
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }


def _written(source):
    """ "name(parameters)" of each function of a solution cell whose body holds its solution."""
    lines = [line for line in source.splitlines() if not line.startswith("#|")]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return ()
    return tuple(
        f"{node.name}({ast.unparse(node.args)})"
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any("### BEGIN SOLUTION" in line for line in lines[node.lineno - 1 : node.end_lineno])
    )


def step_of(source):
    """The function a graded cell's first line says its exercise is a step of, or None."""
    found = STEP.search(source.split("\n", 1)[0])
    return found.group(1) if found else None


def read(folder=None):
    """The graded exercises of the masters in ``folder`` (notebooks/ by default), in the
    lessons' order: each solution cell that has a graded cell ("<name>-tests")."""
    folder = folder or masters_folder()
    found = []
    for number, filename, cells in _cells(folder) if folder else ():
        tests = {
            _grading(cell).get("grade_id"): cell
            for cell in cells
            if cell.get("cell_type") == "code" and _grading(cell).get("grade")
        }
        for cell in cells:
            grading = _grading(cell)
            name = grading.get("grade_id")
            if (
                cell.get("cell_type") != "code"
                or not grading.get("solution")
                or f"{name}-tests" not in tests
            ):
                continue
            test = tests[f"{name}-tests"]
            source = _source(cell)
            defined = _defined(source)
            found.append(
                Exercise(
                    name,
                    number,
                    filename,
                    source.lstrip().startswith(EXPORT),
                    tuple(defined),
                    float(_grading(test).get("points", 0)),
                    _source(test).split(HIDDEN)[0],
                    defined,
                    step_of(_source(test)),
                    _written(source),
                )
            )
    return tuple(found)


def points(folder=None):
    """``{master's name without .ipynb: its points}``: the sum of its graded cells' points,
    nbgrader's maximum score for the lesson (lessons without graded cells are left out)."""
    folder = folder or masters_folder()
    totals = {}
    for _, filename, cells in _cells(folder) if folder else ():
        graded = [
            float(_grading(cell).get("points", 0)) for cell in cells if _grading(cell).get("grade")
        ]
        if graded:
            totals[filename[: -len(".ipynb")]] = sum(graded)
    return totals


def lesson_points(notebook, exercises=None, folder=None):
    """The points of the master ``notebook`` (its file name without .ipynb): all its graded
    cells' (nbgrader's maximum score, as :func:`points` gives it), or only those of the
    exercises named in ``exercises`` (their graded cells, "<name>-tests"). A ``KeyError`` names
    an exercise the master does not grade."""
    cells = {
        grade_id: worth
        for filename, grade_id, worth, _ in graded_cells(folder)
        if filename == f"{notebook}.ipynb"
    }
    if exercises is None:
        return sum(cells.values())
    missing = [name for name in exercises if f"{name}-tests" not in cells]
    if missing:
        raise KeyError(f"{notebook} grades no exercise called {', '.join(missing)}")
    return sum(cells[f"{name}-tests"] for name in exercises)


def said_points(source):
    """The points a graded cell's first line says it is worth ("# Graded tests for x (2
    points)"), or None when it says none."""
    first = source.split("\n", 1)[0]
    if not first.startswith(SAID) or "(" not in first:
        return None
    words = first.rsplit("(", 1)[1].split()
    try:
        return float(words[0])
    except (IndexError, ValueError):
        return None


def graded_cells(folder=None):
    """(file name, grade_id, points, source) of every graded cell of the masters."""
    folder = folder or masters_folder()
    for _, filename, cells in _cells(folder) if folder else ():
        for cell in cells:
            if _grading(cell).get("grade"):
                yield (
                    filename,
                    _grading(cell).get("grade_id"),
                    float(_grading(cell).get("points", 0)),
                    _source(cell),
                )


# --- the rules a lesson teaches -------------------------------------------------------------

#: The key of a master cell's metadata that holds the rules its prose teaches: ``{"teaches":
#: [rule, ...]}`` on the markdown cell that teaches them, each rule a dict with
#:
#: * ``rule``: a short name of the rule ("strict-utf8"); the same name in two lessons is the
#:   same rule taught for another function (``names-what-was-wrong``: a refusal's words);
#: * ``function``: the graded function of the lesson it holds;
#: * ``says``: the rule in a sentence, as the prose teaches it;
#: * ``checked_in``: the id of the code cell below the prose that checks it, the first verdict
#:   a learner reads about it;
#: * ``cases``: the names of the visible cases that hold the rule (a row of the shared case
#:   table, or the words of a case the lesson's cells give).
TEACHES = "mcp_lesson"


class Rule(NamedTuple):
    """One rule a master teaches, as its prose cell's metadata declares it (:data:`TEACHES`)."""

    rule: str
    function: str
    says: str
    checked_in: str
    cases: tuple
    lesson: str
    notebook: str
    #: The id of the markdown cell whose prose teaches it.
    taught_in: str


def rules(folder=None):
    """The rules the masters in ``folder`` (notebooks/ by default) teach, in the lessons' order
    (:data:`TEACHES`). A ``ValueError`` says in one line which cell declares a rule wrongly."""
    folder = folder or masters_folder()
    found = []
    for number, filename, cells in _cells(folder) if folder else ():
        for cell in cells:
            declared = cell.get("metadata", {}).get(TEACHES, {})
            for entry in declared.get("teaches", ()) if isinstance(declared, dict) else ():
                try:
                    found.append(
                        Rule(
                            str(entry["rule"]),
                            str(entry["function"]),
                            str(entry["says"]),
                            str(entry["checked_in"]),
                            tuple(map(str, entry["cases"])),
                            number,
                            filename,
                            cell.get("id", ""),
                        )
                    )
                except (KeyError, TypeError) as exc:
                    raise ValueError(
                        f"{filename}, cell {cell.get('id')}: a rule it teaches lacks "
                        f"{exc} (it needs rule, function, says, checked_in, cases)"
                    ) from None
    return tuple(found)


# --- the visible cases of a graded cell ----------------------------------------------------


class _Graded:
    """Stands for a function a graded cell grades, while its visible part is read."""

    def __init__(self, name):
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        raise LookupError(f"the visible part of a graded cell calls {self.__name__} itself")


#: What a call shown with ``try_it`` expects: the course's answer (no value is written in the cell).
AS_THE_COURSE = "as the course's"


def visible_calls(visible, names):
    """The calls the visible part of a graded cell makes of the functions ``names``:
    ``[(name, args, kwargs, expected)]``, ``expected`` the value an ``expect`` table gives,
    or :data:`AS_THE_COURSE` for a ``try_it`` call. A ``ValueError`` says in one line when the
    cell cannot be read so (it calls the function itself, or names what it does not define)."""
    tree = ast.parse(visible)
    tree.body = [
        node
        for node in tree.body
        if not (isinstance(node, ast.ImportFrom) and node.module == "mcp_lesson.course")
    ]
    calls = []

    def try_it(fn, *args, **kwargs):
        if isinstance(fn, _Graded):
            calls.append((fn.__name__, args, kwargs, AS_THE_COURSE))

    def expect(fn, table):
        if isinstance(fn, _Graded):
            calls.extend((fn.__name__, (row[0],), {}, row[1]) for row in table)

    namespace = {
        "__name__": "__visible__",
        "try_it": try_it,
        "expect": expect,
        **{name: _Graded(name) for name in names},
    }
    try:
        exec(compile(tree, "<visible part of a graded cell>", "exec"), namespace)
    except Exception as exc:
        raise ValueError(
            f"the visible cases of {', '.join(names)} cannot be read: {type(exc).__name__}: {exc}"
        ) from None
    return calls


# --- mcp_lesson/core/graded.py -------------------------------------------------------------

_HEADER = '''\
"""The graded exercises the lesson masters declare, as data: written by ``make export``
(mcp_lesson.exercises.declared.write) from the masters; do not edit (edit the master and run
``make lessons NB=...`` or ``make export``). tests/exercises/test_core.py fails when it drifts.

EXERCISES: each function of the package the masters' exported graded exercises declare, in the lessons'
order, as mcp_lesson.exercises.declared.Declared: (name, lesson, exercise, points, parameters,
step_of, visible calls ``(args, kwargs, expected)``); ``expected`` is "as the course's" for a call
the cell shows with try_it.
POINTS: each graded lesson's points (nbgrader's maximum score).
"""

'''


def _literal(value):
    """True when ``value`` is written as a Python literal that reads back as itself (an int of
    5,000 digits, an object of a class, are not: such a visible case is left out of the data)."""
    try:
        text = repr(value)
        return ast.literal_eval(text) == value and repr(ast.literal_eval(text)) == text
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return False


def table(folder=None):
    """What :func:`write` writes: ``(exercises, points)``, ``exercises`` a :class:`Declared` (as a
    plain tuple) for each function an exported solution cell defines that its graded cell checks:
    the exercise's own, and any other its visible part calls (lesson 02's is_integer, beside
    is_valid_id)."""
    exercises = []
    for exercise in (exercise for exercise in read(folder) if exercise.exported):
        names = exercise.functions or (exercise.name,)
        calls = visible_calls(exercise.visible, names)
        for name in names:
            mine = [
                (args, kwargs, expected)
                for called, args, kwargs, expected in calls
                if called == name and _literal((args, kwargs, expected))
            ]
            if name != exercise.name and not any(called == name for called, *_ in calls):
                continue  # a function of the cell its graded cell does not check (a helper of its own)
            exercises.append(
                tuple(
                    Declared(
                        name,
                        exercise.lesson,
                        exercise.name,
                        exercise.points if name == exercise.name else 0.0,
                        exercise.parameters.get(name, ()),
                        exercise.step_of,
                        mine,
                    )
                )
            )
    return tuple(exercises), points(folder)


def write(masters, target):
    """Write the masters' declared exercises (:func:`table`) into the module file ``target``."""
    exercises, totals = table(masters)
    text = (
        _HEADER
        + "EXERCISES = "
        + pprint.pformat(exercises, width=100, sort_dicts=False)
        + "\n\n"
        + "POINTS = "
        + pprint.pformat(totals, width=100, sort_dicts=False)
        + "\n"
    )
    Path(target).write_text(text, encoding="utf-8")
    return target
