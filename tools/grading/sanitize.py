"""The course's one cleaner of what a submission shows: nothing a student hands in runs, or
renders as markup, in a teacher's or a student's browser.

nbgrader renders a submission as HTML in two places: formgrader's manual grading page (its
``formgrade`` template) and the feedback pages (its ``feedback`` template). Both render a
markdown cell's HTML as it is (nbconvert's markdown renderer keeps raw HTML and
``javascript:`` links), a raw cell with no format as HTML, and an output's ``text/html``,
``image/svg+xml`` or ``text/latex`` as they are. nbconvert's own ``SanitizeHTML`` is disabled
(every nbconvert preprocessor is, by default) and never reaches markdown links.

:class:`CourseSanitizer` cleans the notebook before any template sees it, keeping what is
known to be harmless and nothing else:

* a markdown cell is rendered here (nbconvert's renderer) and the HTML is cleaned with an
  allow list (text formatting, lists, tables, code; links to http, https and mailto only;
  images from ``data:image/png|jpeg|gif`` only; no attribute but the few those need): the
  cell then holds that clean HTML on one line, which the template's markdown renderer passes
  on unchanged (cleaning it again changes nothing);
* a raw cell becomes text: its source shown in a ``<pre>``, escaped, whatever format it claims;
* an output keeps plain text, errors, and PNG, JPEG or GIF images (base64 checked); HTML and
  markdown outputs are cleaned as markdown cells are; SVG, LaTeX, JavaScript, widgets and
  every other kind are dropped (their plain text stays, or a line saying what was left out);
  output metadata is dropped (the templates put ``width`` and ``alt`` into attributes);
* a notebook shows its first :data:`~.markup_budget.NOTEBOOK_CELLS` cells and, after them,
  the course's own (nbgrader's marks), as many again at most; each run of the others is one
  line where it was;
* cell metadata keeps nbgrader's fields with their types checked, and tags and cell ids of
  safe characters; the notebook's metadata keeps the kernel's and language's names only
  (``widgets`` would load widget scripts from a CDN).

The course's nbgrader settings (nbgrader_config.py) give it to every ``HTMLExporter``
(formgrader's page, feedback pages, any nbconvert run under them), and the feedback pages
also carry a Content-Security-Policy that lets no script run (:class:`FeedbackHTML`).
"""

import base64
import html
import re

import bleach
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from .markup_budget import NOTEBOOK_CELLS, Budget, cut_point

#: The tags a cleaned cell may hold: text, lists, tables, code, quotes, rules, images, and the
#: folded answers the lessons write (``<details><summary>``).
TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "code",
        "del",
        "details",
        "div",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "kbd",
        "li",
        "ol",
        "p",
        "pre",
        "s",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
SAFE_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*\Z")
SAFE_LINK = re.compile(r"(?:https?://|mailto:)[^\s\"'<>`]*\Z", re.IGNORECASE)
#: An id, a tag or a name that may go into an attribute as it is.
SAFE_WORD = re.compile(r"[A-Za-z0-9_-]{1,200}\Z")
#: nbgrader's own cell fields, and the type each must have.
NBGRADER_FIELDS = {
    "grade": bool,
    "solution": bool,
    "locked": bool,
    "task": bool,
    "schema_version": int,
    "points": (int, float),
    "grade_id": str,
    "checksum": str,
    "cell_type": str,
    "score": (int, float),
}
SAFE_IMAGES = ("image/png", "image/jpeg", "image/gif")
CLEANED_TYPES = ("text/html", "text/markdown")
#: The policy of a page that runs nothing: styles and images of its own, nothing else.
#: Begins the line that says a cell's rest is shown as text, not rendered.
CUT_WORDS = "The rest of this cell is shown as text, not rendered: "
PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
    "base-uri 'none'; form-action 'none'"
)


def _attribute_allowed(tag, name, value):
    if tag == "a" and name == "href":
        return bool(SAFE_LINK.match(value.strip()))
    if tag == "a" and name == "title":
        return True
    if tag == "img" and name == "src":
        return bool(SAFE_IMAGE.match(value.strip()))
    if tag == "img" and name in ("alt", "title"):
        return True
    if tag in ("td", "th") and name in ("colspan", "rowspan"):
        return value.isdigit()
    return False


def clean_html(text, budget=None):
    """``text`` (HTML) with only the allowed tags and attributes; anything else is shown as
    text (a ``<script>`` becomes the words ``<script>``), on one line. Past a cap of
    markup_budget.py (``budget``: what is left of the notebook's allowance; a fresh one when
    None), the rest is shown as text, after one line saying which cap it passed."""
    text = str(text)
    limit, why = cut_point(text, budget or Budget())
    cleaned = bleach.clean(
        text[:limit],
        tags=TAGS,
        attributes=_attribute_allowed,
        protocols=["http", "https", "mailto", "data"],
        strip=False,
        strip_comments=True,
    )
    # One line, in a block of its own: a markdown renderer passes it on as it is.
    return "<div>" + _one_line(cleaned) + _rest_as_text(text[limit:], why) + "</div>"


def _one_line(text):
    return text.replace("\r", "").replace("\n", "&#10;")


def _rest_as_text(rest, why):
    """The part of a cell past a cap: one line saying which, then the text, escaped."""
    if why is None:
        return ""
    return f"<p><em>{html.escape(CUT_WORDS + why)}</em></p>" + (
        "<pre>" + _one_line(html.escape(rest)) + "</pre>" if rest else ""
    )


def markdown_as_clean_html(source, budget=None):
    """A markdown text rendered, then cleaned (:func:`clean_html`); past the caps of
    markup_budget.py, the rest is shown as text."""
    source, budget = str(source), budget or Budget()
    limit, why = budget.take_source(source)
    try:
        rendered = markdown2html_mistune(source[:limit])
    except Exception:
        rendered = "<pre>" + html.escape(source[:limit]) + "</pre>"
    cleaned = clean_html(rendered, budget)
    if why is None:
        return cleaned
    return cleaned[: -len("</div>")] + _rest_as_text(source[limit:], why) + "</div>"


def text_block(text):
    """``text`` shown as it is (escaped, in a ``<pre>``), on one line."""
    return "<div><pre>" + _one_line(html.escape(str(text))) + "</pre></div>"


def _plain(value):
    """A text field of a notebook (a string or a list of strings), as one string."""
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return value if isinstance(value, str) else ""


def _clean_output(output, budget):
    kind = output.get("output_type")
    if kind == "stream":
        return {
            "output_type": "stream",
            "name": "stderr" if output.get("name") == "stderr" else "stdout",
            "text": _plain(output.get("text")),
        }
    if kind == "error":
        traceback = output.get("traceback")
        return {
            "output_type": "error",
            "ename": _plain(output.get("ename")),
            "evalue": _plain(output.get("evalue")),
            "traceback": [str(line) for line in traceback] if isinstance(traceback, list) else [],
        }
    if kind not in ("display_data", "execute_result"):
        return {
            "output_type": "stream",
            "name": "stdout",
            "text": "(an output of a kind not shown here was left out)\n",
        }
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    kept = {}
    if "text/plain" in data:
        kept["text/plain"] = _plain(data["text/plain"])
    for mime in SAFE_IMAGES:
        value = _plain(data.get(mime)).strip()
        if value and re.fullmatch(r"[A-Za-z0-9+/=\s]+", value):
            try:
                base64.b64decode(value, validate=False)
            except ValueError:
                continue
            kept[mime] = value
    if "text/html" in data:
        kept["text/html"] = clean_html(_plain(data["text/html"]), budget)
    elif "text/markdown" in data:
        kept["text/html"] = markdown_as_clean_html(_plain(data["text/markdown"]), budget)
    left_out = sorted(set(data) - set(kept) - set(CLEANED_TYPES))
    if not kept:
        kept["text/plain"] = f"(an output of {', '.join(left_out)[:200] or 'no kind'} was left out)"
    clean = {"output_type": kind, "data": kept, "metadata": {}}
    if kind == "execute_result":
        count = output.get("execution_count")
        clean["execution_count"] = count if type(count) is int else None
    return clean


def _clean_nbgrader(info):
    if not isinstance(info, dict):
        return None
    kept = {}
    for key, types in NBGRADER_FIELDS.items():
        value = info.get(key)
        if isinstance(value, types) and not (types is not bool and isinstance(value, bool)):
            kept[key] = value
    if "grade_id" in kept and not SAFE_WORD.match(kept["grade_id"]):
        kept["grade_id"] = re.sub(r"[^A-Za-z0-9_-]", "_", kept["grade_id"])[:200] or "cell"
    if "cell_type" in kept and kept["cell_type"] not in ("code", "markdown", "raw"):
        del kept["cell_type"]
    return kept


def _clean_cell(cell, index, budget):
    metadata = {}
    nbgrader = _clean_nbgrader(cell.get("metadata", {}).get("nbgrader"))
    if nbgrader is not None:
        metadata["nbgrader"] = nbgrader
    tags = cell.get("metadata", {}).get("tags")
    if isinstance(tags, list):
        metadata["tags"] = [tag for tag in tags if isinstance(tag, str) and SAFE_WORD.match(tag)]
    cell["metadata"] = metadata
    if "id" in cell and not (isinstance(cell["id"], str) and SAFE_WORD.match(cell["id"])):
        cell["id"] = f"cell-{index}"
    kind = cell.get("cell_type")
    source = _plain(cell.get("source"))
    if kind == "markdown":
        cell["source"] = markdown_as_clean_html(source, budget)
        cell.pop("attachments", None)
    elif kind == "code":
        cell["source"] = source
        count = cell.get("execution_count")
        cell["execution_count"] = count if type(count) is int else None
        outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
        cell["outputs"] = [_clean_output(out, budget) for out in outputs if isinstance(out, dict)]
    else:  # a raw cell, or any other kind: its text, shown as text
        cell["cell_type"] = "markdown"
        cell["source"] = text_block(source)
        cell.pop("attachments", None)
        cell.pop("outputs", None)
        cell.pop("execution_count", None)


def _clean_metadata(metadata):
    """The notebook's kernel and language names (of safe characters), as nbformat requires them."""
    kept = {}
    for key, fields, needed in (
        ("kernelspec", ("name", "display_name", "language"), ("name", "display_name")),
        ("language_info", ("name", "pygments_lexer", "file_extension", "version"), ("name",)),
    ):
        value = metadata.get(key)
        if not isinstance(value, dict):
            continue
        words = {
            field: re.sub(r"[^\w.+ ()-]", "", value[field])[:100]
            for field in fields
            if isinstance(value.get(field), str)
        }
        if all(words.get(field) for field in needed):
            kept[key] = words
    return kept


def _shown_cells(cells):
    """The cells a page shows: the first :data:`~.markup_budget.NOTEBOOK_CELLS`, and after
    them the course's own (those with nbgrader's marks, which formgrader scores), at most as
    many again (a student can write marks too); each run of the others is said in one line
    where it was."""
    from nbformat.v4 import new_markdown_cell

    shown, hidden, later = [], 0, 0
    for index, cell in enumerate(cells):
        if index < NOTEBOOK_CELLS or (later < NOTEBOOK_CELLS and _is_the_courses(cell)):
            later += index >= NOTEBOOK_CELLS
            if hidden:
                shown.append(new_markdown_cell(_hidden_words(hidden)))
                hidden = 0
            shown.append(cell)
        else:
            hidden += 1
    if hidden:
        shown.append(new_markdown_cell(_hidden_words(hidden)))
    return shown


def _is_the_courses(cell):
    """True for a cell with nbgrader's marks (of the right types)."""
    metadata = cell.get("metadata")
    return isinstance(metadata, dict) and bool(_clean_nbgrader(metadata.get("nbgrader")))


def _hidden_words(count):
    return (
        f"*{count:,} more cell{'s' * (count != 1)} of the notebook {'are' if count != 1 else 'is'} "
        f"not shown here: a page shows its first {NOTEBOOK_CELLS:,} cells and the course's own.*"
    )


def clean_notebook(nb):
    """Clean the notebook ``nb`` (a NotebookNode) in place, as :class:`CourseSanitizer` does."""
    from nbformat import from_dict

    nb["metadata"] = from_dict(_clean_metadata(nb.get("metadata", {})))
    nb["cells"] = _shown_cells(nb.cells)
    budget = Budget()  # the notebook's allowance of markup, for all its cells
    for index, cell in enumerate(nb.cells):
        _clean_cell(cell, index, budget)
    nb["cells"] = [from_dict(cell) for cell in nb.cells]
    return nb


class CourseSanitizer(Preprocessor):
    """The course's cleaner (see the module's docstring): on by default, wherever it is listed."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        return clean_notebook(nb), resources


class FeedbackHTML(HTMLExporter):
    """nbconvert's HTML exporter, with a Content-Security-Policy in the page itself that lets
    no script run and fetches nothing (a second wall behind :class:`CourseSanitizer`, for a
    page opened from a file, downloaded or published)."""

    def from_notebook_node(self, nb, resources=None, **kw):
        output, resources = super().from_notebook_node(nb, resources, **kw)
        meta = f'<meta http-equiv="Content-Security-Policy" content="{PAGE_POLICY}">'
        head = re.search(r"<head[^>]*>", output, re.IGNORECASE)
        if head:
            output = output[: head.end()] + "\n" + meta + output[head.end() :]
        else:
            output = meta + "\n" + output
        return output, resources
