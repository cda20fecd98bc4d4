"""Autograde: every collected submission graded by nbgrader with the judge in place of its
execution (tools/grading/classroom.py's *autograde*); verdicts read as data, one line a problem."""

import copy
import re
import shutil
import sys
from pathlib import Path

from tools.grading.course_dir import (
    DEFAULT_TIMEOUT,
    ROOT,
    Step,
    _first_error,
    _shown,
    gradebook,
    nbgrader,
    prepare,
    released,
)

# --- autograde ----------------------------------------------------------------------

#: nbgrader's own warnings about a submission, in the teacher's words.
NBGRADER_SAYS = [
    (
        re.compile(r"Attribute 'points' for cell (\S+) has changed"),
        "the points of cell {0} were changed: nbgrader restored them",
    ),
    (
        re.compile(r"Attribute '(locked|cell_type)' for cell (\S+) has changed"),
        "the {0} setting of cell {1} was changed: nbgrader restored it",
    ),
    (
        re.compile(r"Cell '(\S+)' does not exist in the database"),
        "cell {0} is not in the release (a copied cell?): it is not graded",
    ),
    (re.compile(r"No submitted file: (\S+)"), "{0} is missing: 0 points for it"),
    (
        re.compile(r"Skipping unknown notebook: (\S+)"),
        "{0} is not part of the assignment: not graded",
    ),
]


def problems_in(output):
    """nbgrader's own warnings about a submission (its part of nbgrader's output),
    in plain words. The judge's lines are not read here: they come as data, in
    its records (:func:`judged_records`)."""
    found = []
    for line in output.splitlines():
        if "[grading] " in line:
            continue
        for pattern, words in NBGRADER_SAYS:
            match = pattern.search(line)
            if match:
                found.append(words.format(*(_short_path(g) for g in match.groups())))
                break
    return found


def judged_records(course, assignment, student):
    """{notebook: the judge's record} of ``student``'s ``assignment`` (judged_execute.py
    writes one for each notebook it judged); a record that cannot be read is left out."""
    import json

    found = {}
    for path in sorted((Path(course) / RECORDS / assignment / student).glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if (
            isinstance(record, dict)
            and record.get("judged") is True
            and record.get("student") == student
        ):
            found[str(record.get("notebook"))] = record
    return found


def run_errors(course, assignment):
    """{student: why} for each submission of ``assignment`` the judge could not judge
    because its sandbox did not start (judged_execute.py's record says so as data):
    the run's failure, which scores nothing."""
    import json

    found = {}
    for path in sorted((Path(course) / RECORDS / assignment).glob("*/*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and record.get("judged") is False and record.get("run_error"):
            found[str(record.get("student"))] = str(record["run_error"])
    return found


def tampering(release_nb, submitted):
    """Lines for the locked cells (tests, read-only) of ``release_nb`` that the notebook
    file ``submitted`` edited or deleted. (nbgrader restores both: its own warning
    cannot tell an edit from the hidden tests it puts back, so the release is compared.)"""
    import nbformat

    try:
        nb = nbformat.read(str(submitted), as_version=4)
        cells = {_grade_id(cell): cell for cell in nb.cells}
    except Exception as exc:  # not JSON, not a notebook...
        return [
            f"{Path(submitted).name} is not a notebook nbgrader can read ({type(exc).__name__})"
        ]
    found = []
    for cell in release_nb.cells:
        info = cell.metadata.get("nbgrader", {})
        if not info.get("locked"):
            continue
        what = "test cell" if info.get("grade") else "read-only cell"
        theirs = cells.get(info.get("grade_id"))
        if theirs is None:
            found.append(f"{what} {info['grade_id']} was deleted: nbgrader put it back")
        elif theirs.source != cell.source:
            found.append(
                f"{what} {info['grade_id']} was edited: nbgrader restored it from the release"
            )
    return found


def _nbgrader_of(cell):
    """A submitted cell's nbgrader metadata: a dict, or {} when it is anything else (a
    student's notebook may hold a string there)."""
    info = (
        cell.get("metadata", {}).get("nbgrader") if isinstance(cell.get("metadata"), dict) else None
    )
    return info if isinstance(info, dict) else {}


def _grade_id(cell):
    """A submitted cell's ``grade_id``, or None when it has none that is a string."""
    grade_id = _nbgrader_of(cell).get("grade_id")
    return grade_id if isinstance(grade_id, str) else None


def _flags(info):
    return tuple(bool(info.get(key)) for key in ("grade", "solution", "locked"))


def restore_renamed(release_nb, submitted):
    """Give back its ``grade_id`` to each cell of the notebook file ``submitted``
    whose id is not the release's, when it can only be one cell of the release:
    the one with the same source, else the only cell of the release missing
    from the submission with the same kind (test, solution, read-only). The
    file is rewritten (it is the course's copy, in submitted/); returns a line
    for each cell restored."""
    import nbformat

    try:
        nb = nbformat.read(str(submitted), as_version=4)
    except Exception:
        return []
    ours = {
        cell.metadata["nbgrader"]["grade_id"]: cell
        for cell in release_nb.cells
        if cell.metadata.get("nbgrader", {}).get("grade_id")
    }
    present = {_grade_id(cell) for cell in nb.cells}
    found = []
    for cell in nb.cells:
        info = _nbgrader_of(cell)
        grade_id = _grade_id(cell)
        if not grade_id or grade_id in ours:
            continue
        missing = [gid for gid in ours if gid not in present]
        same = [gid for gid in missing if ours[gid].source == cell.source] or [
            gid for gid in missing if _flags(ours[gid].metadata["nbgrader"]) == _flags(info)
        ]
        if len(same) != 1:
            continue
        cell.metadata["nbgrader"] = copy.deepcopy(ours[same[0]].metadata["nbgrader"])
        present.add(same[0])
        found.append(f"cell {same[0]} was renamed {grade_id}: its name was given back")
    if found:
        nbformat.write(nb, str(submitted))
    return found


def _short_path(text):
    return Path(text).name if "/" in text else text


def release_cells(course, assignment, name):
    """The code cells of a released notebook (none when it cannot be read)."""
    import nbformat

    try:
        nb = nbformat.read(str(Path(course) / "release" / assignment / name), as_version=4)
    except Exception:
        return []
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def zero(course, assignment, student):
    """Record ``student``'s ``assignment`` in the gradebook with 0 points in every cell
    (what nbgrader itself records for a notebook that was not submitted)."""
    with gradebook(course) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.needs_manual_grade = False
        gb.db.commit()


def score_of(course, assignment, student):
    """(score, max score) of a submission, from the gradebook."""
    with gradebook(course) as gb:
        submission = gb.find_submission(assignment, student)
        score = max(0.0, submission.score - submission.late_submission_penalty)
        return float(score), float(submission.max_score)


def autograde(course, assignments=(), timeout=DEFAULT_TIMEOUT, student=None):
    """Autograde every collected submission of ``assignments`` (default: all released), or
    ``student``'s only (formgrader's Autograde button)."""
    course = prepare(course)
    step = Step(course, f"autograde (each cell under {timeout} s)")
    try:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from tools.judge.sandbox import note

        step.say(note())
        known = released(course)
        wanted = list(assignments) or sorted(known)
        unknown = [a for a in wanted if a not in known]
        if unknown:
            step.say(
                f"not released: {', '.join(unknown)} (released: {', '.join(sorted(known)) or 'none'})"
            )
            return 1
        submitted = course / "submitted"
        jobs = {
            assignment: sorted(
                p.parent.name
                for p in submitted.glob(f"*/{assignment}")
                if p.is_dir() and student in (None, p.parent.name)
            )
            for assignment in wanted
        }
        # One nbgrader run for them all when they are every assignment submitted/ holds (its
        # assignment id is then the pattern "*", as release's is), one each otherwise:
        # nbgrader takes about two seconds of CPU to start.
        busy = [assignment for assignment, students in jobs.items() if students]
        present = {p.name for p in submitted.glob("*/*") if p.is_dir()}
        together = student is None and len(busy) > 1 and present == set(busy)
        runs = [busy] if together else [[assignment] for assignment in busy]
        graded, failed, done = 0, [], {}
        for assignment, students in jobs.items():
            if not students:
                step.say(f"{assignment}: no submissions collected")
                continue
            if assignment not in done:  # the first of its run: the run, then each its report
                run = next(run for run in runs if assignment in run)
                done.update(_grade_run(course, run, jobs, known, timeout))
            step.say(f"{assignment}:")
            prepared, (code, limit, log, output), section_of = done[assignment]
            _after_run(course, step, assignment, prepared, output, log)
            not_judged = _report(
                course,
                step,
                assignment,
                students,
                known[assignment],
                prepared,
                (code, limit, log),
                section_of,
            )
            graded += len(students) - len(not_judged)
            failed += not_judged
        step.say(
            f"{graded} submission{'s' * (graded != 1)} graded into "
            f"{_shown(course / 'gradebook.db')}"
        )
        if failed:  # the course's failure, said once, in one line: never a score
            step.say(
                f"autograde failed: {failed[0]} ({len(failed)} submission{'s' * (len(failed) != 1)} "
                "left ungraded; run make autograde again once it is fixed)"
            )
            return 1
        return 0
    finally:
        step.close()


def _before_grading(course, assignment, student, notebooks):
    """What to say about a submission before nbgrader sees it (a renamed cell is
    given back here); None when it holds none of the assignment's notebooks."""
    import nbformat

    folder = course / "submitted" / student / assignment
    present = {p.name for p in folder.glob("*.ipynb")}
    if not present & notebooks:
        return None
    said = []
    for name in sorted(present & notebooks):
        release_nb = nbformat.read(str(course / "release" / assignment / name), as_version=4)
        said += restore_renamed(release_nb, folder / name)
        said += tampering(release_nb, folder / name)
    return said


#: The record nbgrader starts each student with, at the start of a line (nbgrader's log
#: indents a record's later lines, so a newline in a student's text starts no record).
_ABOUT = re.compile(r"\[\w+ \| INFO\] Creating/updating student with ID '([^'\s]+)': ")
#: Where the judge's records are, in the course folder (JudgedExecute.records).
RECORDS = Path("logs") / "judged"
_FAILED = re.compile(r"There was an error processing assignment: \S*/submitted/([^/\s]+)/")


def _teachers_files(course, assignment):
    """What a submission must never change: the course's nbgrader_config.py and the
    gradebook's copy of the lesson's cells (its tests). (The sandbox keeps them out
    of reach; this is the check that it did.)"""
    config = course / "nbgrader_config.py"
    with gradebook(course) as gb:
        cells = {}
        for notebook in gb.find_assignment(assignment).notebooks:
            for cell in notebook.source_cells:
                cells[(notebook.name, cell.name)] = (cell.source, cell.checksum)
    return {"config": config.read_bytes() if config.exists() else None, "cells": cells}


def _restore_teachers_files(course, assignment, kept):
    """Put back what changed since :func:`_teachers_files`; a line for each change."""
    said = []
    config = course / "nbgrader_config.py"
    if kept["config"] is not None and (
        not config.exists() or config.read_bytes() != kept["config"]
    ):
        config.write_bytes(kept["config"])
        said.append(f"{_shown(config)} had changed during grading: put back as it was")
    with gradebook(course) as gb:
        for notebook in gb.find_assignment(assignment).notebooks:
            for cell in notebook.source_cells:
                before = kept["cells"].get((notebook.name, cell.name))
                if before is not None and (cell.source, cell.checksum) != before:
                    cell.source, cell.checksum = before
                    said.append(
                        f"the gradebook's copy of cell {cell.name} had changed during "
                        "grading: put back as it was"
                    )
        gb.db.commit()
    return said


def by_student(output):
    """nbgrader's output of one run over a class, cut into {student: its lines}: a line
    belongs to the student whose record nbgrader started last before it (never to one a
    cell's id or name mentions)."""
    sections, current = {}, None
    for line in output.splitlines():
        if "[grading] " in line:  # the judge's lines, with a student's text quoted in them
            continue
        match = _ABOUT.match(line)
        if match:
            current = match.group(1)
        if current is not None:
            sections.setdefault(current, []).append(line)
    return {student: "\n".join(lines) for student, lines in sections.items()}


#: nbgrader's own line naming a submitted notebook it reads, at the start of a line: the
#: student and the assignment are the folders the path ends in.
_READS = re.compile(
    r"\[\w+ \| INFO\] (?:Sanitizing|Converting notebook) .*/submitted/([^/]+)/([^/]+)/[^/]+$"
)
_FAILED_AT = re.compile(
    r"There was an error processing assignment: \S*/submitted/([^/\s]+)/([^/\s]+)"
)


def by_submission(output):
    """nbgrader's output of one run over several assignments, cut into {(student,
    assignment): its lines}: as :func:`by_student` cuts it, each record then named by the
    first line of nbgrader's own in it that names the student's submitted folder (the
    notebook it reads, or the submission it failed on)."""
    records = []  # [student, assignment (None until a line names it), lines]
    for line in output.splitlines():
        if "[grading] " in line:
            continue
        match = _ABOUT.match(line)
        if match:
            records.append([match.group(1), None, []])
        if not records:
            continue
        record = records[-1]
        record[2].append(line)
        if record[1] is None:
            named = _READS.match(line) or _FAILED_AT.search(line)
            if named and named.group(1) == record[0]:
                record[1] = named.group(2)
    sections = {}
    for student, assignment, lines in records:
        sections.setdefault((student, assignment), []).extend(lines)
    return {key: "\n".join(lines) for key, lines in sections.items()}


def failure_in(section):
    """Why nbgrader could not grade a submission (the error its traceback ends
    with), or None when it graded it."""
    lines = section.splitlines()
    start = next((i for i, line in enumerate(lines) if _FAILED.search(line)), None)
    if start is None:
        return None
    cause = None
    for line in lines[start + 1 :]:
        text = line.strip()
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b", text):
            cause = text
        elif line.startswith("[") and cause:
            break
    return (cause or "an error in nbgrader")[:300]


def _prepare(course, assignment, students, notebooks, timeout):
    """What a run needs of ``assignment`` before nbgrader starts: what to say of each
    submission first (None: none of its notebooks), those ready to grade, the run's last
    resort of a limit, and the teacher's files to check after; earlier grading removed."""
    before, ready = {}, []
    for student in students:
        said = _before_grading(course, assignment, student, notebooks)
        if said is None:
            before[student] = None
        else:
            before[student] = said
            ready.append(student)
    cells = sum(len(release_cells(course, assignment, name)) for name in notebooks)
    shutil.rmtree(course / RECORDS / assignment, ignore_errors=True)  # this run's records only
    for student in ready:  # what nbgrader writes is this run's too
        shutil.rmtree(course / "autograded" / student / assignment, ignore_errors=True)
    return {
        "before": before,
        "ready": ready,
        # A last resort, never reached in practice (a day at most: poll() takes no longer wait).
        "limit": min(300 + len(ready) * cells * (timeout + 10), 86_400),
        "kept": _teachers_files(course, assignment) if ready else None,
    }


def _run(course, pattern, timeout, limit, log_name, only=()):
    return nbgrader(
        course,
        "autograde",
        pattern,
        "--force",
        *only,
        f"--JudgedExecute.timeout={timeout}",
        limit=limit,
        log_name=log_name,
    )


def _after_run(course, step, assignment, prepared, output, log):
    """The teacher's files put back, and the settings nbgrader could not load, in words."""
    if prepared["kept"] is not None:
        for line in _restore_teachers_files(course, assignment, prepared["kept"]):
            step.say(f"  {line}")
    if prepared["ready"] and "Exception while loading config file" in output:
        step.say(
            f"  nbgrader could not load the course's settings, so nothing of this run "
            f"was judged: {_first_error(output)}; see {log}"
        )


def _grade_run(course, run, jobs, known, timeout):
    """Autograde every collected submission of the assignments of ``run`` in one nbgrader run
    (nbgrader is imported once, not once a student; the sandbox keeps each submission to
    itself): the assignment's own id for one, "*" (every folder of submitted/) for several.
    Returns {assignment: (what :func:`_prepare` found, the run's (exit code, limit, log,
    output), a function giving a student's part of the output)}."""
    prepared = {
        assignment: _prepare(course, assignment, jobs[assignment], known[assignment], timeout)
        for assignment in run
    }
    one = run[0] if len(run) == 1 else None
    log_name = f"autograde-{one or 'all'}"
    log = _shown(course / "logs" / f"{log_name}.log")
    limit = min(sum(each["limit"] for each in prepared.values()), 86_400)
    code, output = (0, "")
    if any(each["ready"] for each in prepared.values()):
        students = jobs[run[0]]
        only = [f"--student={students[0]}"] if one and len(students) == 1 else []
        code, output = _run(course, one or "*", timeout, limit, log_name, only)
    outcome = (code, limit, log, output)
    if one:
        sections = by_student(output)
        return {one: (prepared[one], outcome, lambda student: sections.get(student, ""))}
    cut = by_submission(output)
    return {
        assignment: (
            prepared[assignment],
            outcome,
            lambda student, assignment=assignment: cut.get((student, assignment), ""),
        )
        for assignment in run
    }


def _report(course, step, assignment, students, notebooks, prepared, run, section_of):
    """One line per student of ``assignment`` and a line per problem, from the run's
    ``(exit code, limit, log)`` and ``section_of(student)``, its part of nbgrader's output;
    returns why, for each submission the judge could not judge (its sandbox did not start):
    those get no score and no line of points, and for each one nbgrader did not finish because
    its own process ended (its memory, a signal): those are not graded either."""
    code, limit, log = run
    before = prepared["before"]
    not_started, ended = run_errors(course, assignment), {}
    for student in students:
        if student in not_started:  # the course's failure: nothing is recorded for the student
            step.say(f"  {student}: not graded (the course's judge did not start)")
            continue
        if before[student] is None:
            zero(course, assignment, student)
            present = sorted(
                p.name for p in (course / "submitted" / student / assignment).glob("*.ipynb")
            )
            found = f" (found {', '.join(present)})" if present else ""
            step.say(
                f"  {student}: 0 points: no {', '.join(sorted(notebooks))} in the submission{found}"
            )
            continue
        section = section_of(student)
        present = {
            p.name for p in (course / "submitted" / student / assignment).glob("*.ipynb")
        } & notebooks
        # Verdicts come as data: the judge's records and what nbgrader wrote, never the log.
        records = judged_records(course, assignment, student)
        judged = all(Path(name).stem in records for name in present)
        autograded = all(
            (course / "autograded" / student / assignment / name).is_file() for name in present
        )
        problems = before[student] + problems_in(section)
        for name, record in records.items():
            shown_name = "" if name == assignment else f"{name}: "
            problems += [shown_name + str(line) for line in record.get("incidents", [])][:50]
        seconds = sum(float(record.get("seconds", 0)) for record in records.values())
        if code is None and not autograded:
            zero(course, assignment, student)
            problems.append(
                f"nbgrader did not finish within {limit} s and was stopped: 0 points; see {log}"
            )
        elif not autograded and code != 0 and failure_in(section) is None:
            # nbgrader itself ended (killed, out of memory) before it finished this
            # submission: the run's failure, never the student's 0
            ended[student] = (
                f"the grading process ended (exit code {code}) before it had graded "
                f"this submission; see {log}"
            )
            step.say(f"  {student}: not graded ({ended[student]})")
            continue
        elif not autograded:
            zero(course, assignment, student)
            cause = failure_in(section)
            problems.append(
                f"nbgrader could not grade it ({cause or 'it was not graded'}): 0 points; see {log}"
            )
        elif not judged:  # graded, but not by the judge: never trusted
            zero(course, assignment, student)
            problems.append(
                f"it was not judged in the sandbox (the course's settings were not "
                f"used): 0 points; see {log}"
            )
        score, most = score_of(course, assignment, student)
        step.say(f"  {student}: {score:g}/{most:g} points ({seconds:.1f} s)")
        for problem in problems:
            step.say(f"    {problem}")
    return [not_started[student] for student in students if student in not_started] + list(
        ended.values()
    )
