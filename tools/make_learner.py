"""Make the learner copies of the lessons: the masters with solutions stubbed out.

    python tools/make_learner.py          # (re)write notebooks/learner/NN_*.ipynb
    python tools/make_learner.py --check  # exit 1 if a copy is missing or stale
    python tools/make_learner.py --force  # also overwrite copies somebody worked in

Every numbered master ``notebooks/NN_*.ipynb`` holds its solutions between
nbgrader's solution comment lines inside function bodies. nbgrader's own
``ClearSolutions`` preprocessor replaces each such region with a stub that
raises ``NotImplementedError``; outputs and execution counts are cleared, and a
short note at the top says this is the learner copy and where its master is.
Copies of masters that no longer exist are removed.

A lesson is named ``NN_topic.ipynb``: two digits, an underscore, then lower
case letters, digits and underscores. So JupyterLab's duplicates
(``03_classifying-Copy1.ipynb``) and a learner's own files are never taken
for lessons. A copy that holds outputs has been worked in (a learner ran it
and saved it): it is never overwritten or removed without ``--force``.
"""

import argparse
import copy
import sys
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ClearOutputPreprocessor
from nbgrader.preprocessors import ClearSolutions

from mcp_lesson.course import NUMBERED

ROOT = Path(__file__).resolve().parent.parent
MASTERS = ROOT / "notebooks"
LEARNER = MASTERS / "learner"
LESSON_NAME = NUMBERED  # NN_topic.ipynb, the rule mcp_lesson.course also lists lessons by

NOTE_ID = "learner-copy-note"
NOTE = """\
> **Learner copy.** The function bodies marked `# YOUR CODE HERE` are yours to \
write; each self-check tells you how far you are. This file is generated from the \
master [`notebooks/{name}`](../{name}) (which holds worked solutions) by \
`make learner`, which overwrites it: keep your own work under another name \
(File > Save Notebook As...)."""


def lesson_files(folder):
    """The files of ``folder`` named like a lesson (``NN_topic.ipynb``), in order."""
    return sorted(p for p in Path(folder).glob("*.ipynb") if LESSON_NAME.match(p.name))


def masters(folder=MASTERS):
    """The numbered lesson masters, in order."""
    return lesson_files(folder)


def worked_in(path):
    """True when the notebook at ``path`` holds outputs: somebody ran and saved it."""
    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception:  # unreadable: not ours to judge, so keep it
        return True
    return any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")


def learner_copy(master):
    """The learner copy of the notebook at ``master``, as a NotebookNode."""
    nb = nbformat.read(str(master), as_version=4)
    nb = copy.deepcopy(nb)
    nb, _ = ClearSolutions(enforce_metadata=False).preprocess(nb, {"language": "python"})
    nb, _ = ClearOutputPreprocessor().preprocess(nb, {})
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.execution_count = None
            cell.outputs = []
        # nbgrader metadata would mean nothing to a learner; execution timings vary.
        cell.metadata.pop("nbgrader", None)
        cell.metadata.pop("execution", None)
    note = nbformat.v4.new_markdown_cell(NOTE.format(name=Path(master).name))
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


def target_of(master, folder=LEARNER):
    return Path(folder) / Path(master).name


def stale(folder=LEARNER):
    """Names of learner copies that are missing, out of date, or orphaned."""
    wrong = []
    for master in masters():
        target = target_of(master, folder)
        if not target.exists() or target.read_text(encoding="utf-8") != learner_text(master):
            wrong.append(target.name)
    wanted = {m.name for m in masters()}
    wrong += [p.name for p in lesson_files(folder) if p.name not in wanted]
    return wrong


KEPT = ("kept {path}: it holds outputs, so somebody worked in it. Save that work under "
        "another name (File > Save Notebook As...), or run `make learner FORCE=1`.")


def _shown(path):
    path = Path(path)
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def write_all(folder=LEARNER, force=False):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for master in masters():
        target = target_of(master, folder)
        text = learner_text(master)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        if target.exists() and worked_in(target) and not force:
            print(KEPT.format(path=_shown(target)))
            continue
        target.write_text(text, encoding="utf-8")
        written.append(target.name)
    wanted = {m.name for m in masters()}
    for orphan in lesson_files(folder):
        if orphan.name in wanted:
            continue
        if worked_in(orphan) and not force:
            print(KEPT.format(path=_shown(orphan)))
            continue
        orphan.unlink()
        print(f"removed {_shown(orphan)} (its master is gone)")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only report copies that are missing or out of date")
    parser.add_argument("--force", action="store_true",
                        help="also overwrite or remove copies that hold outputs")
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale()
        for name in wrong:
            print(f"out of date: notebooks/learner/{name} (run `make learner`)")
        if not wrong:
            print(f"{len(masters())} learner copies are up to date")
        return 1 if wrong else 0
    written = write_all(force=args.force)
    print(f"{len(masters())} learner copies in notebooks/learner/, "
          f"{len(written)} rewritten" + (f": {', '.join(written)}" if written else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
