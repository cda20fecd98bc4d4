"""Helpers for the lesson notebooks: the table of contents and gentle checks.

Everything here prints a short, deterministic verdict and never lets a
learner's unfinished function (one that raises ``NotImplementedError``) stop a
notebook with a traceback.

* :func:`lessons` / :func:`contents`: the numbered notebooks of a folder and
  their titles, read from the files themselves (so the index is never typed
  twice);
* :func:`try_it`: call a function on one example and print what came back;
* :func:`show_json`: the same, printing the result as the JSON text it sends;
* :func:`expect`: a small checked table for one small function;
* :func:`start_lesson` / :func:`carry_forward`: the learner's own package
  (see :mod:`mcp_lesson.exercises.learner_package`);
* :func:`agree`: does the learner's function give the same answers as the
  package's on the whole case table?
* :func:`check`: the package's self-check (it names the learner's function);
* :func:`self_check`: ``check(fn)`` followed by ``agree(fn, package version)``;
* :func:`check_mine`: the same check on the learner's own package, or one line
  saying that a function is not there yet;
* :func:`check_lesson`: a lesson's self-check, ``check_mine`` of every function the
  lesson writes into the package, as its master declares them;
* :func:`aim`: target practice, "write a message that this rule catches"
  (:func:`broken_rules` lists every rule a message breaks, not only the first);
* :func:`quiz`: label some messages by hand and compare with ``classify``;
* :func:`rough_kind` / :func:`rough_is_request`: lesson 01's key-sniffing sorter (the
  master's export, mcp_lesson/core/kinds.py), the reference its bug hunt compares with;
* lesson 10's recordings of live traffic: :func:`read_recording`,
  :func:`stored_recording`, :func:`show_recording` (a table),
  :func:`sequence_diagram` / :func:`show_diagram` (Mermaid, drawn from the
  recording, every message text escaped), :func:`show_audit` (a learner's
  ``audit`` on a recording, in words), :func:`tap_command` and
  :func:`tapped_config` (the tap in front of any server).

This folder is what a lesson's cells call (``from mcp_lesson.course import ...``):
these helpers, lesson 10's (:mod:`.live_traffic`) and lesson 11's (:mod:`.your_own_server`).
It sits at the top: it may import every other folder of mcp_lesson (the widgets,
the tap, the programs, the exercises and the rules), and none of them imports it.
"""

import json
import re
import sys
from pathlib import Path
from typing import NamedTuple

from mcp_lesson.core.kinds import rough_kind  # (lesson 01's export, its bug hunt's reference)
from mcp_lesson.exercises import lessons as _lessons
from mcp_lesson.exercises import registry
from mcp_lesson.exercises.agreement import agrees
from mcp_lesson.exercises.agreement import inputs_for as _inputs_for
from mcp_lesson.exercises.agreement import outcome as _outcome
from mcp_lesson.exercises.agreement import reference_for as _reference_for
from mcp_lesson.exercises.agreement import same_outcome as _same
from mcp_lesson.exercises.calling import (
    NOT_YET,
    cut_apart,
    exception_text,
    python_text,
    safe_equal,
    same_json,
)
from mcp_lesson.exercises.carry import carry_forward
from mcp_lesson.exercises.carry import load as load_package
from mcp_lesson.exercises.inputs import SAMPLES
from mcp_lesson.exercises.learner_package import PACKAGE, start_lesson
from mcp_lesson.exercises.selfcheck import check, run_check
from mcp_lesson.protocol.values import python_type
from mcp_lesson.rules import classification, explanation
from mcp_lesson.shared.recording import mermaid_text, sequence_diagram

#: (The lessons, in order, are the file names of mcp_lesson/exercises/lessons.py's one table,
#: ``FILES``: the course knows them by that list, never by a name pattern, so a learner's
#: own ``08_my_notes.ipynb`` is never taken for a lesson.)


class Heading(NamedTuple):
    """A lesson as the contents list shows it: its number, its file and its title."""

    number: int
    filename: str
    title: str


def _notebook_folder(folder):
    if folder is not None:
        return Path(folder)
    here = Path.cwd()
    if (here / _lessons.FILES[0]).exists():
        return here
    return Path(__file__).resolve().parents[2] / "notebooks"


def title_of(path):
    """The first Markdown heading of a notebook, without the leading #'s."""
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
        for cell in notebook.get("cells", []):
            if cell.get("cell_type") != "markdown":
                continue
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            for line in source.splitlines():
                match = re.match(r"^#{1,6}\s+(.+?)\s*#*\s*$", line)
                if match:
                    return match.group(1)
    except (OSError, ValueError, AttributeError):
        pass
    return Path(path).stem.replace("_", " ")


def headings(folder=None, names=_lessons.FILES):
    """The lessons of ``names`` (the course's, by default) present in ``folder``, in order.

    ``folder`` defaults to the current directory when it holds lessons (a
    notebook runs in its own folder), else the course's ``notebooks/``.
    """
    folder = _notebook_folder(folder)
    found = []
    for name in names:
        path = folder / name
        if path.exists():
            found.append(Heading(int(name[:2]), name, title_of(path)))
    return found


def contents(folder=None, names=_lessons.FILES):
    """The table of contents as Markdown: one linked line per lesson."""
    lines = []
    for lesson in headings(folder, names):
        title = (
            lesson.title if lesson.title[:1].isdigit() else f"{lesson.number:02d} · {lesson.title}"
        )
        lines.append(f"- [{title}]({lesson.filename})")
    return "\n".join(lines) if lines else "(no lessons found)"


def show_contents(folder=None):
    """Display the table of contents (as Markdown in Jupyter, as text elsewhere)."""
    text = contents(folder)
    try:
        from IPython.display import Markdown, display
    except ImportError:  # pragma: no cover - outside Jupyter
        print(text)
        return
    display(Markdown(text))


# --- calling a learner's function safely --------------------------------------


def _call_text(fn, args, kwargs=None):
    parts = [python_text(a, 70) for a in args]
    parts += [f"{k}={python_text(v, 70)}" for k, v in (kwargs or {}).items()]
    return f"{_shown_name(fn)}({', '.join(parts)})"


def _shown_name(fn, unnamed="fn"):
    """The name a call is shown with: a learner's function (or the course's) by its
    own name, a standard library one with its module, as it is written (json.loads)."""
    name = getattr(fn, "__name__", unnamed)
    module = getattr(fn, "__module__", None)
    if not isinstance(name, str) or not isinstance(module, str):
        return name if isinstance(name, str) else unnamed
    if module.split(".")[0] in sys.stdlib_module_names and module not in ("builtins", "__main__"):
        return f"{module}.{name}"
    return name


def try_it(fn, *args, **kwargs):
    """Call ``fn(*args, **kwargs)`` and print the call and what came back.

    An unfinished function prints "not implemented yet"; any other exception
    is printed as its type and text, never as a traceback.
    """
    status, value = _outcome(fn, args, kwargs)
    if status == "todo":
        result = NOT_YET
    elif status == "raised":
        result = f"raises {exception_text(value, 200)}"
    else:
        result = python_text(value, 130)
    print(f"{_call_text(fn, args, kwargs)} -> {result}")


def show_json(fn, *args, **kwargs):
    """Call ``fn(*args, **kwargs)`` and print the result as indented JSON text,
    the way it goes on the wire; an unfinished ``fn`` prints "not implemented
    yet", any other exception its type and text, never a traceback."""
    status, value = _outcome(fn, args, kwargs)
    if status == "todo":
        print(f"{_call_text(fn, args, kwargs)} -> {NOT_YET}")
    elif status == "raised":
        print(f"{_call_text(fn, args, kwargs)} -> raises {exception_text(value, 200)}")
    else:
        try:
            print(json.dumps(value, indent=2))
        except (TypeError, ValueError) as exc:
            print(
                f"{_call_text(fn, args, kwargs)} -> {python_text(value, 130)}, which is not JSON ({exc})"
            )


def _why_of(want, got):
    """Why a miss of :func:`expect` is one, when its row gave no words: a check of a
    predicate wants True or False itself."""
    if type(want) is bool and got[0] == "value" and type(got[1]) is not bool:
        return (
            "a yes-or-no answer is True or False itself, not a value that is merely true or false"
        )
    return ""


def expect(fn, table):
    """Check ``fn`` on a small table of ``(argument, expected result)`` pairs, or
    ``(argument, expected result, why)`` triples, and print one verdict line, then each
    miss in plain words: the call, then what it should be and what came back, and why
    (results compare by type too, so ``1`` is not ``True``)."""
    name = getattr(fn, "__name__", "fn")
    rows = [(row[0], row[1], row[2] if len(row) > 2 else "") for row in table]
    outcomes = [(arg, want, why, _outcome(fn, (arg,))) for arg, want, why in rows]
    if all(status == "todo" for _, _, _, (status, _) in outcomes):
        print(f"{name}: {NOT_YET}")
        return
    misses = [
        (arg, want, why, got)
        for arg, want, why, got in outcomes
        if not (got[0] == "value" and type(got[1]) is type(want) and safe_equal(got[1], want))
    ]
    print(f"{name}: {len(rows) - len(misses)}/{len(rows)} right")
    for arg, want, why, got in misses:
        print(f"  {_call_text(fn, (arg,))}")
        why = why or _why_of(want, got)
        print(
            f"      should be {python_text(want, 100)}, got {_outcome_text(got, 100)}"
            + (f"  ({why})" if why else "")
        )


# --- agreement with the package -------------------------------------------------


def _outcome_text(outcome, limit=60):
    status, value = outcome
    if status == "todo":
        return NOT_YET
    if status == "raised":
        return f"raises {exception_text(value, limit)}"
    if status == "changed":
        return "changed its argument (a judge leaves it as it was)"
    return python_text(value, limit)


def _label(fn):
    """A reference as the comparison names it: the course's own with its package
    (mcp_lesson.classify), any other as a call shows it."""
    module = getattr(fn, "__module__", "") or ""
    if isinstance(module, str) and module.startswith("mcp_lesson"):
        return f"mcp_lesson.{getattr(fn, '__name__', 'reference')}"
    return _shown_name(fn, "reference")


def _named(fn, depth=2):
    """``fn``, or when it is a name (a str), the function of that name in the notebook whose
    cell called (``depth`` frames up); None, after one line saying so, when there is none yet.
    A lesson's last cell names its functions, so that run before they are written it says
    "not written yet", where ``self_check(error_response)`` would stop on a NameError."""
    if type(fn) is not str:
        return fn
    try:
        found = sys._getframe(depth).f_globals.get(fn)
    except (AttributeError, ValueError):  # a Python without frames: nothing to find
        found = None
    if found is None:
        print(f"{fn}: not written yet: run the cell that defines {fn}, then this one again")
    return found


def agree(fn, reference=None, table=None, show=3):
    """Print whether ``fn`` answers like ``reference`` on every case of the table.

    ``table`` (default: ``fn.__name__``) picks the inputs: raw texts for a
    name ending in ``_json``, builder calls for ``create_request`` and
    ``error_response``, the parsed messages of the case table otherwise.
    ``reference`` defaults to the package's function of that name. Raising
    the same exception type counts as agreeing (builders must refuse bad
    arguments). ``fn`` may be a function's name, looked up in the notebook (see :func:`_named`).
    """
    fn = _named(fn)
    if fn is None:
        return
    table = table or getattr(fn, "__name__", "classify")
    if reference is None:
        reference = _reference_for(table)
    inputs = _inputs_for(table)
    outcomes = [(_outcome(fn, a, k, watch=True), _outcome(reference, a, k)) for a, k in inputs]
    name = getattr(fn, "__name__", "fn")
    if all(mine[0] == "todo" for mine, _ in outcomes):
        print(f"{name} vs {_label(reference)}: {NOT_YET}")
        return
    if all(theirs[0] == "todo" for _, theirs in outcomes):
        print(f"{name} vs {_label(reference)}: {_label(reference)} is {NOT_YET}")
        return
    differ = [
        (a, k, mine, theirs)
        for (a, k), (mine, theirs) in zip(inputs, outcomes)
        if not _same(mine, theirs)
    ]
    agreeing = len(inputs) - len(differ)
    print(f"{name} agrees with {_label(reference)} on {agreeing}/{len(inputs)} cases")
    for args, kwargs, mine, theirs in differ[:show]:
        print(f"  differs on {_call_text(fn, args, kwargs)[:110]}")
        given, course = cut_apart(_outcome_text(mine, 400), _outcome_text(theirs, 400), 60)
        print(f"      {name} -> {given}; {_label(reference)} -> {course}")
    if len(differ) > show:
        print(
            f"  ... and {len(differ) - show} more (agree(..., show={len(differ)}) shows them all)"
        )


def self_check(fn, reference=None, show=3):
    """The last cell of a lesson: the case-table check, then the agreement. ``fn`` may be
    the function's name, looked up in the notebook (see :func:`_named`)."""
    fn = _named(fn)
    if fn is None:
        return
    check(fn, show=show)
    agree(fn, reference, show=show)


def lesson_functions(lesson):
    """The functions lesson ``lesson`` ("09") writes into the learner's package and graduation
    judges, in the order its master declares them (mcp_lesson/core/graded.py)."""
    return [
        built.name for built in registry.BUILT if built.lesson == str(lesson) and built.graduates
    ]


def check_lesson(lesson, show=3):
    """A lesson's self-check: :func:`check_mine` for each function the lesson writes into the
    package (:func:`lesson_functions`), so that a new exercise of the master is in it with no
    cell edited. Never raises."""
    names = lesson_functions(lesson)
    if not names:
        print(f"lesson {lesson} writes nothing into your package {PACKAGE}")
    for name in names:
        check_mine(name, show=show)


def check_mine(name, show=3):
    """Check the learner's own function ``name`` from their package ``my_mcp``
    (see :mod:`mcp_lesson.exercises.learner_package`): the case-table check for the four
    checked functions, the agreement with the course's version for the others.

    When the package, or the function in it, is not there yet, print one line
    that says so and which lesson writes it (and, when a lesson file of the
    package could not run, that file and its error). Never raises; the output
    depends only on the package's contents.
    """
    lesson = registry.lesson_of(name)
    where = f"lesson {lesson} writes it" if lesson else "no lesson writes it"
    try:
        package = load_package()
    except Exception:  # load() guards itself; this is a last resort
        package = None
    mine = getattr(package, name, None) if package is not None else None
    if not callable(mine):
        problems = getattr(package, "PROBLEMS", None) if package is not None else None
        if isinstance(problems, dict) and problems:
            file, error = sorted(problems.items())[0]
            print(
                f"{name}: not in your package {PACKAGE}, because {file} could not run "
                f"({str(error)[:100]}); fix that lesson's #| export cell and run it again"
            )
        elif package is None:
            first = min(registry.MODULES)
            starts = f"lesson {first} starts it; " if lesson != first else ""
            print(f"{name}: you have no package {PACKAGE} yet ({starts}{where})")
        else:
            print(f"{name}: not in your package {PACKAGE} yet ({where})")
        return
    if name in registry.CHECKED:
        if run_check(mine, name).not_implemented:
            print(
                f"{name}: in your package {PACKAGE}, but {NOT_YET} "
                f"(write its body in lesson {lesson or '?'} and run that cell again)"
            )
        else:
            check(mine, name, show=show)
    else:  # every function the course has cases for has a table (mcp_lesson.exercises.registry)
        print(f"{name}: it is in your package {PACKAGE}; the course has no check for it")


_ARTICLE = {"request": "a request", "notification": "a notification", "response": "a response"}


def _is_pair(label):
    """True for a whole verdict given as a label: a 2-tuple or 2-list starting with a str."""
    return type(label) in (tuple, list) and len(label) == 2 and type(label[0]) is str


def _quiz_line(number, label, kind, msg):
    """One wrong label in plain words: what the learner said, what the message is, and why."""
    reason = explanation.explain(msg).partition(": ")[2]  # drop the "Request:" heading
    said = python_text(label, 60)
    if _is_pair(label) and safe_equal(label[0], kind):
        return (
            f"  message {number}: you said {said}, the whole verdict; "
            f"the quiz wants the kind only, the string {kind!r}"
        )
    if type(label) is str and label != kind and label.strip().lower() == kind:
        return (
            f"  message {number}: you said {said}; right kind, but write it exactly "
            f"{kind!r} (the kinds are lower-case words, with no spaces)"
        )
    wanted = _ARTICLE.get(kind, kind)
    text = f"  message {number}: you said {said}, but it is {wanted}: {reason}"
    if _is_pair(label):
        text += f" (And give the kind only, a string such as {kind!r}, not a pair.)"
    return text


def quiz(fn, messages_to_label):
    """``fn()`` returns one kind per message: a list of strings such as
    ``"request"``, in order. Print how many match ``classify``, and for each
    wrong label what the message really is and why (a whole verdict such as
    ``("request", None)`` is answered with "the kind only", ``"Request"`` with
    "write it exactly 'request'"). Anything but a list (a tuple too) is not
    scored: the lesson asks for a list, and its graded test wants one."""
    name = getattr(fn, "__name__", "fn")
    answered, labels = _answer_of(fn)
    if not answered:
        return
    want = [classification.classify(m)[0] for m in messages_to_label]
    if not isinstance(labels, list):
        print(
            f"{name}: return a list of kinds, one string per message, each "
            f"'request', 'notification', 'response' or 'invalid' (this is {python_type(labels)})"
        )
        return
    if len(labels) != len(want):
        print(
            f"{name}: {_plural(len(want), 'message')} but {_plural(len(labels), 'label')}; "
            "return one kind per message"
        )
        return
    right = sum(type(a) is str and safe_equal(a, b) for a, b in zip(labels, want))
    print(f"{name}: {right}/{len(want)} right")
    for number, (label, kind, msg) in enumerate(zip(labels, want, messages_to_label), 1):
        if not (type(label) is str and safe_equal(label, kind)):
            print(_quiz_line(number, label, kind, msg))


# --- target practice -------------------------------------------------------------


# --- lesson 01's first sorter --------------------------------------------------------


def rough_is_request(msg):
    """True when the course's :func:`rough_kind` calls ``msg`` a request."""
    return rough_kind(msg) == ("request", None)


# Target practice (target_practice.py) and lesson 10's helpers (live_traffic.py), where the
# lessons import them from.
from mcp_lesson.course.live_traffic import (  # noqa: E402  (after the setup above)
    ARROWS,
    RECORDINGS,
    SENDERS,
    audit_of,
    comparable,
    play_script,
    read_recording,
    show_audit,
    show_diagram,
    show_recording,
    store_recordings,
    stored_recording,
    tap_command,
    tapped_config,
)
from mcp_lesson.course.target_practice import (  # noqa: E402  (after the setup above)
    _answer_of,
    _plural,
    aim,
    broken_rules,
)
