"""A notebook cell as the learner's package gets it: its Python without IPython's
syntax (:func:`python_of`), the names it defines and uses, whether it is still a
released stub (:func:`is_stub`), and its error codes taken from the package's own
``codes`` module (:func:`own_codes`).
"""

import ast
import difflib
import re
from pathlib import Path

MARKER = "#| export"


def is_exported(source):
    """True when a cell's first line is the export marker ``#| export``."""
    lines = source.lstrip().splitlines()
    return bool(lines) and lines[0].strip() == MARKER


def defined_names(code):
    """The names a piece of Python defines at its top level (functions, classes,
    assigned names; not imports), as a set; empty when it does not parse."""
    return set(_defined_in_order(code))


def python_of(source):
    """The Python of an exported cell, as ``(code, left_out)``.

    ``code`` is the cell without its marker line and without the lines that
    are IPython's own syntax (magics, shell commands, ``?`` help): IPython's
    input transformer tells them apart, and a line it turns into a call of
    IPython is left out. ``left_out`` lists those lines as ``(the line's
    number in the cell, the line)``; a magic continued over several lines is
    listed by its first.
    """
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    cleaned = ran = lines
    magic = []
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with JupyterLab
        pass
    else:
        manager = TransformerManager()
        try:
            for transform in manager.cleanup_transforms:  # prompts, a common indent
                cleaned = transform(cleaned)
            if cleaned and cleaned[0].split()[:1] and cleaned[0].split()[0] in BODY_MAGICS:
                # %%time and its like run the cell's body as Python: so does the export
                magic = [(len(lines) - len(cleaned) + 1, cleaned[0].strip())]
                cleaned = ["\n"] + cleaned[1:]
            ran = cleaned
            for transform in manager.line_transforms:  # a %% cell magic
                ran = transform(ran)
            ran = manager.do_token_transforms(ran)  # %magic, !shell, x = !cmd, obj?
        except Exception:  # IPython cannot read it either: it is kept as written
            cleaned = ran = lines
    skipped = len(lines) - len(cleaned)  # the blank lines IPython drops at the top
    kept, left_out = [], magic
    matcher = difflib.SequenceMatcher(None, cleaned, ran, autojunk=False)
    for tag, start, end, _, _ in matcher.get_opcodes():
        if tag == "equal":
            kept += cleaned[start:end]
        else:  # one item a line, except the lines that continue a magic (a "\\" at the end)
            left_out += [
                (skipped + i + 1, lines[skipped + i].strip())
                for i in range(start, end)
                if i == start or not cleaned[i - 1].rstrip("\r\n").endswith("\\")
            ]
    for index, line in enumerate(kept):  # the marker is the first line that is not blank
        if line.strip():
            if line.strip() == MARKER:
                del kept[index]
            break
    # nbgrader's solution markers (in the masters only) are comments for the course's tools.
    kept = [line for line in kept if line.strip() not in _SOLUTION_MARKERS]
    return "".join(kept).strip("\n"), left_out


_SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
#: Cell magics whose body JupyterLab runs as plain Python (once or more, timed or
#: with its output caught): the body is the cell's Python.
BODY_MAGICS = ("%%time", "%%timeit", "%%capture")


def _parses(code):
    """True when ``code`` is Python with something in it."""
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return bool(code.strip())


def used_names(code):
    """The names a piece of Python reads (``ast.Name`` loads), as a set; empty
    when it does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def _defined_in_order(code):
    """:func:`defined_names`, as a list in the order the code defines them."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(node.name)
        elif isinstance(node, ast.Assign):
            found += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            found.append(node.target.id)
    return found


#: What nbgrader puts in place of a solution in a released copy (the course's
#: nbgrader settings and the learner copies use it).
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
_STUB = re.compile(r"#\s*YOUR CODE HERE[ \t]*\r?\n[ \t]*raise NotImplementedError\(\)")
_YOUR_CODE = re.compile(r"#\s*YOUR CODE HERE[ \t]*$", re.MULTILINE)
_STILL_RAISES = re.compile(r"^[ \t]*raise NotImplementedError\b", re.MULTILINE)


def is_stub(code):
    """True when ``code`` is still the released stub: it holds at least one stub (``# YOUR CODE
    HERE`` and, on the next line, ``raise NotImplementedError()``) and every ``# YOUR CODE
    HERE`` is still followed by its ``raise``. A cell with one part written under its
    ``# YOUR CODE HERE`` and a stub left elsewhere is half written, not the released stub."""
    stubs = len(_STUB.findall(code))
    return stubs > 0 and stubs == len(_YOUR_CODE.findall(code))


def still_raises_at(source):
    """The line (from 1) of the first ``raise NotImplementedError`` of a cell's ``source``, or
    None: a cell that holds one has a part not written yet."""
    found = _STILL_RAISES.search(source)
    return source.count("\n", 0, found.start()) + 1 if found else None


#: The error codes the lessons' cells take from the course (``from mcp_lesson import
#: PARSE_ERROR``): the exporter writes them into the package's own ``codes.py`` and the
#: cells' import as ``from .codes import PARSE_ERROR``, so nothing in the package
#: imports mcp_lesson (the learner's package stands alone).
CODES = "codes"
_NAMES = r"[A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*"
#: ``from mcp_lesson import A, B`` on one line, or ``(A, B, ...)`` over several.
_CODES_IMPORT = re.compile(
    rf"^from mcp_lesson import (\(\s*{_NAMES}\s*,?\s*\)|{_NAMES})[ \t]*$", re.MULTILINE
)


def _code_names():
    from mcp_lesson.protocol import codes

    return {name for name in vars(codes) if name.isupper()}


def own_codes(code):
    """``code`` with each ``from mcp_lesson import <codes>`` (error codes and messages
    only) taken from the package's own ``codes`` module instead."""
    names = _code_names()

    def local(match):
        wanted = {name.strip() for name in match.group(1).strip("()").split(",") if name.strip()}
        return f"from .{CODES} import {match.group(1)}" if wanted <= names else match.group(0)

    return _CODES_IMPORT.sub(local, code)


def codes_text():
    """The package's ``codes.py``: the course's error codes, copied (a package that
    stands alone has its own)."""
    from mcp_lesson.protocol import codes

    source = Path(codes.__file__).read_text(encoding="utf-8")
    body = source.split('"""', 2)[2].lstrip("\n") if source.startswith('"""') else source
    return (
        '"""The reserved JSON-RPC 2.0 error codes and their standard messages, and MCP\'s own\n'
        "codes and _meta names, copied by the course from mcp_lesson/protocol/codes.py, so that this\n"
        'package needs nothing of the course."""\n\n' + body
    )
