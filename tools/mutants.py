"""Mutation testing of the judge: mutmut mutates the masters' exported package, one module at a
time, and graduation is the test command; a mutant graduation passes is a survivor.

    python tools/mutants.py                       # every module of the package
    python tools/mutants.py conversation revisions  # some modules (my_mcp/<module>.py)

Each module's mutants graduate against the course's tests of the functions that module holds
only (pytest -k on their names, -x: the first failure kills a mutant), so a mutant costs one
start of the judge's sandbox and the tests up to its first failure. Prints, per module and in
all, "killed K of N mutants (score S%)", the survivors (mutmut's own diff of each), and the
time it took. Exit 0 when no mutant survives.

mutmut 2.5.1 (pinned in pyproject.toml's test extras): the last mutmut that runs any command as
its test (--runner) and mutates the files in place; mutmut 3 runs pytest in its own process
and learns which tests reach a function from inside it, which cannot see into the judge's
sandbox, where graduation runs the package.

Only what graduation judges is mutated: the graduated functions of a module and, one after
another, every top-level function, class and value they name (:func:`judged_lines`). The
rest of a module (lesson 11's I/O around its message handling, which the lesson gives and
no grader judges) gets mutmut's ``# pragma: no mutate`` in the copy, so a mutant there is
never counted as a survivor of the judge.
"""

import argparse
import ast
import io
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from mcp_lesson.exercises import registry  # noqa: E402  (after sys.path is set)
from mcp_lesson.exercises.learner_package import PACKAGE, export_notebook  # noqa: E402  (after sys.path is set)
from mcp_lesson.exercises.lessons import FILES as LESSONS  # noqa: E402  (after sys.path is set)


def _mutmut():
    found = Path(sys.executable).parent / "mutmut"
    return str(found) if found.exists() else shutil.which("mutmut")


def _ids_under(text, heading):
    """The ids mutmut's results list under ``heading`` ("Survived", "Timed out"): lines such as
    "18-24, 73, 92" under each file, up to the next status's heading."""
    ids = []
    lines = text.split(heading, 1)[1].splitlines()[1:] if heading in text else []
    for line in lines:
        if line.strip() and not line.startswith("----") and not re.fullmatch(r"[\d,\s-]+", line):
            break
        if not line.startswith("----"):
            for low, high in re.findall(r"(\d+)(?:-(\d+))?", line):
                ids += list(range(int(low), int(high or low) + 1))
    return ids


def _counts(folder):
    """(killed, survived, others, the survivors' ids, the timed-out ones' ids) from mutmut's
    results in ``folder``."""
    shown = subprocess.run([_mutmut(), "results"], cwd=folder, capture_output=True, text=True)
    text = shown.stdout
    junit = subprocess.run(
        [_mutmut(), "junitxml"], cwd=folder, capture_output=True, text=True
    ).stdout
    total = int(re.search(r'tests="(\d+)"', junit).group(1)) if 'tests="' in junit else 0
    failures = int(re.search(r'failures="(\d+)"', junit).group(1)) if 'failures="' in junit else 0
    errors = int(re.search(r'errors="(\d+)"', junit).group(1)) if 'errors="' in junit else 0
    return (
        total - failures - errors,
        failures,
        errors,
        _ids_under(text, "Survived"),
        _ids_under(text, "Timed out"),
    )


def _defines(node):
    """The names a top-level statement defines."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [
            name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)
        ]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    return []


def judged_lines(source, names):
    """The line numbers (from 1) of the top-level statements of ``source`` that graduation reaches
    from the functions ``names``: those functions, and whatever top-level name they use, in turn."""
    tree = ast.parse(source)
    defined = {}
    for node in tree.body:
        for name in _defines(node):
            defined.setdefault(name, []).append(node)
    reached, waiting = set(), list(names)
    while waiting:
        name = waiting.pop()
        if name in reached or name not in defined:
            continue
        reached.add(name)
        for node in defined[name]:
            waiting += [used.id for used in ast.walk(node) if isinstance(used, ast.Name)]
    return {
        line
        for name in reached
        for node in defined[name]
        for line in range(node.lineno, node.end_lineno + 1)
    }


def left_alone(source, judged):
    """``source`` with mutmut's ``# pragma: no mutate`` at the end of each line outside ``judged``
    that does not end inside a string (the comment would become part of it there)."""
    inside = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            inside.update(range(token.start[0], token.end[0]))
    lines = source.split("\n")
    for number, line in enumerate(lines, 1):
        if number not in judged and number not in inside and line.strip():
            lines[number - 1] = line + "  # pragma: no mutate"
    return "\n".join(lines)


def run_module(work, module, names):
    """Mutate my_mcp/<module>.py in ``work``; return (killed, survived, other, survivor diffs)."""
    runner = " ".join(
        shlex.quote(part)
        for part in [
            sys.executable,
            str(ROOT / "tools" / "graduate.py"),
            str(work / PACKAGE),
            "--",
            "-x",
            "-k",
            " or ".join(names),
        ]
    )
    (work / "tests").mkdir(exist_ok=True)  # mutmut asks for a tests folder, and never reads it
    path = work / PACKAGE / f"{module}.py"
    source = path.read_text(encoding="utf-8")
    path.write_text(left_alone(source, judged_lines(source, names)), encoding="utf-8")
    cache = work / ".mutmut-cache"
    cache.unlink(missing_ok=True)
    subprocess.run(
        [
            _mutmut(),
            "run",
            "--paths-to-mutate",
            f"{PACKAGE}/{module}.py",
            "--runner",
            runner,
            "--no-progress",
            "--simple-output",
        ],
        cwd=work,
        capture_output=True,
        text=True,
    )
    killed, survived, other, ids, timed_out = _counts(work)

    def shown(i):
        return subprocess.run(
            [_mutmut(), "show", str(i)], cwd=work, capture_output=True, text=True
        ).stdout

    return killed, survived, other, [shown(i) for i in ids], [shown(i) for i in timed_out]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "modules",
        nargs="*",
        help="modules of the package (default: every one that holds a function graduation runs)",
    )
    args = parser.parse_args(argv)
    if _mutmut() is None:
        print("mutmut is not installed: `pip install -e .[test]` installs the pinned one")
        return 1
    holds = {}
    for built in registry.BUILT:
        if built.graduates:
            holds.setdefault(built.module, []).append(built.name)
    unknown = [module for module in args.modules if module not in holds]
    if unknown:
        print(
            f"no graduated function lives in {', '.join(unknown)}; the modules are {', '.join(holds)}"
        )
        return 1
    work = Path(tempfile.mkdtemp(prefix="mutants-"))
    for name in LESSONS:
        if (ROOT / "notebooks" / name).exists():
            export_notebook(ROOT / "notebooks" / name, work / PACKAGE)
    started, all_killed, all_total, survivors, timed_out = time.monotonic(), 0, 0, [], []
    for module in args.modules or holds:
        began = time.monotonic()
        killed, survived, other, diffs, slow = run_module(work, module, holds[module])
        timed_out += slow
        total = killed + survived + other
        all_killed, all_total = all_killed + killed, all_total + total
        survivors += diffs
        score = f"{100 * killed / total:.0f}%" if total else "no mutants"
        print(
            f"{module}.py ({', '.join(holds[module])}): killed {killed} of {total} mutants "
            f"(score {score}; {survived} survived, {other} timed out or other) in "
            f"{time.monotonic() - began:.0f} s",
            flush=True,
        )
    for diff in survivors:
        print(diff.rstrip())
    if (
        timed_out
    ):  # graduation did not pass them: it ran past mutmut's limit (a loop, or a busy machine)
        print(
            f"timed out ({len(timed_out)}): graduation ran past mutmut's time limit on these, so it did "
            "not pass them; a loop the judge stops call by call can cost more than that limit"
        )
        for diff in timed_out:
            print(diff.rstrip())
    score = f"{100 * all_killed / all_total:.0f}%" if all_total else "no mutants"
    print(
        f"in all: killed {all_killed} of {all_total} mutants (score {score}) in "
        f"{time.monotonic() - started:.0f} s"
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0 if all_killed == all_total else 2


if __name__ == "__main__":
    sys.exit(main())
