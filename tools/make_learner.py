"""Make the learner copies of the lessons: the masters with solutions stubbed out.

    python tools/make_learner.py          # (re)write notebooks/learner/NN_*.ipynb
    python tools/make_learner.py --check  # exit 1 if a copy is missing or stale

Every numbered master ``notebooks/NN_*.ipynb`` holds its solutions between
nbgrader's solution comment lines inside function bodies. nbgrader's own
``ClearSolutions`` preprocessor replaces each such region with a stub that
raises ``NotImplementedError``; outputs and execution counts are cleared, and a
short note at the top says this is the learner copy and where its master is.
Copies of masters that no longer exist are removed.
"""

import argparse
import copy
import sys
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ClearOutputPreprocessor
from nbgrader.preprocessors import ClearSolutions

ROOT = Path(__file__).resolve().parent.parent
MASTERS = ROOT / "notebooks"
LEARNER = MASTERS / "learner"
PATTERN = "[0-9][0-9]_*.ipynb"

NOTE_ID = "learner-copy-note"
NOTE = """\
> **Learner copy.** The function bodies marked `# YOUR CODE HERE` are yours to \
write; each self-check tells you how far you are. This file is generated from the \
master [`notebooks/{name}`](../{name}) (which holds worked solutions) by \
`make learner`, which overwrites it: keep your own work under another name \
(File > Save Notebook As...)."""


def masters(folder=MASTERS):
    """The numbered lesson masters, in order."""
    return sorted(Path(folder).glob(PATTERN))


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
    wrong += [p.name for p in sorted(Path(folder).glob(PATTERN)) if p.name not in wanted]
    return wrong


def write_all(folder=LEARNER):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for master in masters():
        target = target_of(master, folder)
        text = learner_text(master)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written.append(target.name)
    wanted = {m.name for m in masters()}
    for orphan in sorted(folder.glob(PATTERN)):
        if orphan.name not in wanted:
            orphan.unlink()
            print(f"removed {orphan.relative_to(ROOT)} (its master is gone)")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only report copies that are missing or out of date")
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale()
        for name in wrong:
            print(f"out of date: notebooks/learner/{name} (run `make learner`)")
        if not wrong:
            print(f"{len(masters())} learner copies are up to date")
        return 1 if wrong else 0
    written = write_all()
    print(f"{len(masters())} learner copies in notebooks/learner/, "
          f"{len(written)} rewritten" + (f": {', '.join(written)}" if written else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
