"""Make the learner copies of the lessons: the masters with solutions stubbed out.

    python tools/make_learner.py          # (re)write notebooks/learner/NN_*.ipynb
    python tools/make_learner.py --check  # exit 1 if a copy is missing or stale
    python tools/make_learner.py --force  # also overwrite copies somebody changed

Every lesson master (the list ``mcp_lesson.exercises.lessons.FILES``) holds its
solutions between nbgrader's solution comment lines inside function bodies.
The learner copy is the student version nbgrader's ``generate_assignment``
makes of it, the same one ``make release`` hands a class: the pipeline is
tools/grading/student_version.py (nbgrader's own generate_assignment steps
under the course's nbgrader settings, without a gradebook). Each solution
region becomes a stub that raises ``NotImplementedError``, outputs and
execution counts are cleared, hidden tests are taken out of the autograder
cells, and those cells stay locked with their nbgrader metadata (so a learner
copy, handed in, is a submission nbgrader can grade). A short note at the top
says this is the learner copy and where its master is.

A learner's work is never lost. The tool keeps a record of what it wrote
(``notebooks/learner/.written.json``: a fingerprint of each file's cells), and:

* it overwrites a copy only when the copy is still exactly what it last wrote
  (so a copy that was edited, run, or cleared after editing is never
  overwritten, outputs or not);
* when such a changed copy is out of date, the new version goes *beside* it,
  as ``NN_topic.updated.ipynb``, and the tool says so; when the lesson has not
  changed since the tool wrote the copy, there is nothing new to put beside it;
* a copy it cannot read as UTF-8 text (saved in another encoding by another
  editor, say) is a copy somebody changed: it is kept, and the tool says so;
* it deletes only files it wrote itself and that nobody changed since (a copy
  whose lesson left the list); a file it did not write is never touched;
* ``--force`` overwrites changed copies and removes changed orphans: the
  explicit way out.

The fingerprint covers each cell's type, source, outputs and attachments, the
things a learner writes; opening and saving a copy without changing a cell
keeps it. Metadata that JupyterLab rewrites on save (cell collapse state, the
kernel's language version) is not part of it.

First, it writes the start page's "what you write" table again in the master
(notebooks/00_start_here.ipynb, the Markdown cell ``WHAT_YOU_WRITE_ID``) from the masters'
graded exercises (:func:`what_you_write`), so the table and its learner copy follow the lessons;
``--check`` reports it when it is out of date.
"""

import argparse
import hashlib
import json
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the checkout's packages come first
    sys.path.insert(0, str(ROOT))
from mcp_lesson.exercises.lessons import FILES as LESSONS  # noqa: E402  (the checkout's, not an installed one)
from tools.grading.student_version import student_notebook  # noqa: E402  (nbgrader's generate_assignment steps)

MASTERS = ROOT / "notebooks"
LEARNER = MASTERS / "learner"
RECORD = ".written.json"
UPDATED = ".updated.ipynb"

NOTE_ID = "learner-copy-note"
NOTE = """\
> **Learner copy.** {what} This file is generated from the master \
[`notebooks/{name}`](../{name}) (which holds worked solutions) by `make learner`. \
Your changes here are kept: when the lesson is updated and you have changed this \
copy, the new version is written beside it as `{updated}`."""
WITH_EXERCISES = (
    "The function bodies marked `# YOUR CODE HERE` are yours to write; "
    "each self-check tells you how far you are."
)
WITHOUT_EXERCISES = "This lesson has no function for you to write; run it and read along."


START = "00_start_here.ipynb"
#: The start page's cell that :func:`what_you_write` writes (nothing else of the page is touched).
WHAT_YOU_WRITE_ID = "c00-what-you-write"


def _listed(names):
    names = [f"`{name}`" for name in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def what_you_write(master_folder=MASTERS):
    """The start page's "what you write" table (Markdown), made from the masters in
    ``master_folder``: for each lesson after the start page, its title (linked), the functions
    its graded exercises have the learner write (those that go into the learner's package
    first, with the package's module), and its points (nbgrader's, the graded cells' summed)."""
    from mcp_lesson.course import title_of
    from mcp_lesson.exercises import declared, lessons

    exercises = declared.read(master_folder)
    points = declared.points(master_folder)
    lines = ["| lesson | what you write | points |", "|---|---|---|"]
    for lesson in lessons.LESSONS:
        path = Path(master_folder) / lesson.filename
        if lesson.filename == START or not path.exists():
            continue
        mine = [exercise for exercise in exercises if exercise.lesson == lesson.number]
        package = [
            function for exercise in mine if exercise.exported for function in exercise.written
        ]
        others = [
            function for exercise in mine if not exercise.exported for function in exercise.written
        ]
        what = []
        if package:
            what.append(f"{_listed(package)}, into your package (`my_mcp.{lesson.module}`)")
        if others:
            what.append(_listed(others))
        worth = points.get(path.stem)
        lines.append(
            f"| [{title_of(path)}]({lesson.filename}) | "
            f"{'; then '.join(what) or 'nothing to write: run it and read along'} | "
            f"{f'{worth:g}' if worth else '-'} |"
        )
    return "\n".join(lines)


def start_page_is_stale(master_folder=MASTERS):
    """True when the start page's "what you write" cell is not what :func:`what_you_write`
    makes (False for a folder whose start page has no such cell)."""
    path = Path(master_folder) / START
    if not path.exists():
        return False
    cells = [
        cell
        for cell in nbformat.read(str(path), as_version=4).cells
        if cell.get("id") == WHAT_YOU_WRITE_ID
    ]
    return bool(cells) and cells[0].source != what_you_write(master_folder)


def write_start_page(master_folder=MASTERS):
    """Write the start page's "what you write" cell again in the master when it is out of date;
    True when it wrote it."""
    if not start_page_is_stale(master_folder):
        return False
    path = Path(master_folder) / START
    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.get("id") == WHAT_YOU_WRITE_ID:
            cell.source = what_you_write(master_folder)
    nbformat.write(nb, str(path))
    return True


def masters(folder=MASTERS):
    """The lesson masters present in ``folder``, in the order of ``LESSONS``."""
    return [Path(folder) / name for name in LESSONS if (Path(folder) / name).exists()]


def learner_copy(master):
    """The learner copy of the notebook at ``master``, as a NotebookNode."""
    stubbed = any(
        "### BEGIN SOLUTION" in cell.source
        for cell in nbformat.read(str(master), as_version=4).cells
    )
    nb = student_notebook(master)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # execution timings vary from run to run
    name = Path(master).name
    note = nbformat.v4.new_markdown_cell(
        NOTE.format(
            what=WITH_EXERCISES if stubbed else WITHOUT_EXERCISES, name=name, updated=beside(name)
        )
    )
    if (nb.nbformat, nb.nbformat_minor) >= (4, 5):
        note.id = NOTE_ID
    else:  # cell ids arrived in nbformat 4.5
        del note["id"]
    nb.cells.insert(0, note)
    nbformat.validate(nb)
    return nb


def learner_text(master):
    """The learner copy of ``master`` exactly as it is written to disk."""
    return nbformat.writes(learner_copy(master)) + "\n"


def beside(name):
    """Where the new version of a changed copy goes: ``03_x.ipynb`` -> ``03_x.updated.ipynb``."""
    return name[: -len(".ipynb")] + UPDATED


def fingerprint(text):
    """A hash of what a learner writes in a notebook: each cell's type, source,
    outputs and attachments. Text that is not a notebook is hashed as it is."""
    try:
        cells = json.loads(text)["cells"]
        content = [
            [
                cell.get("cell_type"),
                _joined(cell.get("source", "")),
                cell.get("outputs", []),
                cell.get("attachments", {}),
            ]
            for cell in cells
        ]
        data = json.dumps(content, sort_keys=True)
    except Exception:  # not a notebook we can read: any change counts
        data = text
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def _joined(source):
    return "".join(source) if isinstance(source, list) else source


#: What :meth:`Folder.read` returns for a file that exists but cannot be read as UTF-8 text.
UNREADABLE = object()


class Folder:
    """A learner folder and the record of what this tool wrote into it."""

    def __init__(self, path):
        self.path = Path(path)
        self.record_path = self.path / RECORD
        try:
            self.record = json.loads(self.record_path.read_text(encoding="utf-8"))
            if not isinstance(self.record, dict):
                self.record = {}
        except (OSError, ValueError):
            self.record = {}

    def read(self, name):
        """The text of the file ``name``; None when there is no such file, and
        :data:`UNREADABLE` when there is one that is not UTF-8 text."""
        path = self.path / name
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            return UNREADABLE
        except OSError:
            return UNREADABLE if path.exists() or path.is_symlink() else None

    def untouched(self, name):
        """True when the file ``name`` is exactly what the tool last wrote there."""
        text = self.read(name)
        return isinstance(text, str) and self.record.get(name) == fingerprint(text)

    def write(self, name, text):
        (self.path / name).write_text(text, encoding="utf-8")
        self.record[name] = fingerprint(text)

    def remove(self, name):
        (self.path / name).unlink()
        self.record.pop(name, None)

    def save_record(self):
        text = json.dumps(dict(sorted(self.record.items())), indent=1) + "\n"
        if self.read(RECORD) != text:
            self.record_path.write_text(text, encoding="utf-8")


def _shown(path):
    path = Path(path)
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def write_all(folder=LEARNER, force=False, master_folder=MASTERS):
    """Bring the learner copies in ``folder`` up to date without losing anyone's work.

    Returns the names written. Prints one line for every copy it kept, every
    new version it put beside a changed copy, and every file it removed.
    """
    if write_start_page(master_folder):
        print(
            f"wrote the start page's table of what you write again: {_shown(Path(master_folder) / START)}"
        )
    target = Folder(folder)
    target.path.mkdir(parents=True, exist_ok=True)
    written = []
    wanted = set()
    for master in masters(master_folder):
        name = master.name
        wanted.add(name)
        text = learner_text(master)
        current = target.read(name)
        if current == text:
            target.record[name] = fingerprint(text)  # ours, whoever wrote it
            continue
        if current is None or target.untouched(name) or force:
            target.write(name, text)
            written.append(name)
            if (target.path / beside(name)).exists() and target.untouched(beside(name)):
                target.remove(beside(name))  # the side copy is no longer needed
            continue
        if current is UNREADABLE:
            print(
                f"kept {_shown(target.path / name)}: it is not UTF-8 text (saved in another "
                "encoding?), so it counts as yours and is never overwritten"
            )
        if target.record.get(name) == fingerprint(text):
            continue  # changed by somebody, but the lesson is what the tool wrote there last
        side = beside(name)
        if target.read(side) == text:
            continue
        if (target.path / side).exists() and not target.untouched(side) and not force:
            print(
                f"kept {_shown(target.path / name)} and {_shown(target.path / side)}: "
                "you changed both; the lesson's new version was not written"
            )
            continue
        target.write(side, text)
        written.append(side)
        print(
            f"kept {_shown(target.path / name)}: you changed it, so the lesson's new "
            f"version went beside it, as {_shown(target.path / side)}"
        )
    for name in sorted(target.record):
        if name in wanted or not (target.path / name).exists():
            if not (target.path / name).exists():
                target.record.pop(name, None)
            continue
        if name.endswith(UPDATED) and name[: -len(UPDATED)] + ".ipynb" in wanted:
            continue  # a side copy of a current lesson, handled above
        if target.untouched(name) or force:
            target.remove(name)
            print(
                f"removed {_shown(target.path / name)}: its lesson is gone and you had not changed it"
            )
        else:
            print(f"kept {_shown(target.path / name)}: its lesson is gone, but you changed it")
    target.save_record()
    return written


def stale(folder=LEARNER, master_folder=MASTERS):
    """Names of learner copies that are missing or out of date, and files the
    record says the tool wrote but that are not what it would write now."""
    target = Folder(folder)
    wrong = []
    wanted = set()
    for master in masters(master_folder):
        wanted.add(master.name)
        text = learner_text(master)
        if target.read(master.name) != text or target.record.get(master.name) != fingerprint(text):
            wrong.append(master.name)
    wrong += sorted(name for name in target.record if name not in wanted)
    if start_page_is_stale(master_folder):
        wrong.insert(0, f"../{START} (its table of what you write)")
    return wrong


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="only report copies that are missing or out of date"
    )
    parser.add_argument(
        "--force", action="store_true", help="also overwrite or remove copies somebody changed"
    )
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale()
        for name in wrong:
            where = name.removeprefix("../") if name.startswith("../") else f"learner/{name}"
            print(f"out of date: notebooks/{where} (run `make learner`)")
        if not wrong:
            print(f"{len(masters())} learner copies are up to date")
        return 1 if wrong else 0
    written = write_all(force=args.force)
    print(
        f"{len(masters())} learner copies in notebooks/learner/, "
        f"{len(written)} written" + (f": {', '.join(written)}" if written else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
