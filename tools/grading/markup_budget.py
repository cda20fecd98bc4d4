"""What the cleaner (sanitize.py) may spend on one notebook: a cap on the markup it parses,
per cell and per notebook, so that a submission's cost is bounded and its own.

The HTML parser under the cleaner (html5lib, through bleach) is linear for ordinary pages, but
not for every page: its list of active formatting elements is scanned for each new formatting
tag and rebuilt after each block (``<p><b title=1>x</p><p><b title=2>x</p>…`` clones every
earlier ``b`` again in each paragraph), and its stack of open elements is scanned for each
block tag, so formatting tags left open, or tags nested deep, cost the square of their number
(4,000 such tags took 30 s, and the output grew with the square too). The markdown renderer
(mistune) is somewhat worse than linear on a few shapes of long text.

So before a text is parsed, one linear pass over it (:func:`cut_point`) finds where it would
pass a cap: more characters than a cell may hold, more tags than a cell or what is left of the
notebook's allowance, tags nested deeper than :data:`MAX_OPEN`, or more formatting tags left
open than :data:`MAX_FORMATTING`. The pass keeps stacks in which an end tag closes its own element only, never another by
implication, so they count at least as much nesting as the parser's own (which holds at most
:data:`MAX_FORMATTING` elements more, the formatting ones it opens again):
the parser then works on a text within the caps, whose cost is linear. The caps are many times
what the course's own lessons use (at most about 200 tags and 2,100 characters in a markdown
cell, 1,000 tags and 27,000 characters in a notebook).
"""

import re

#: Characters of one cell's markdown that are rendered; the rest is shown as text.
CELL_SOURCE = 20_000
#: Characters of rendered HTML of one cell (or one output) that are parsed.
CELL_HTML = 100_000
#: Tags of one cell that are parsed.
CELL_TAGS = 2_000
#: Characters of markdown a notebook may have rendered, in all.
NOTEBOOK_SOURCE = 200_000
#: Tags a notebook may have parsed, in all.
NOTEBOOK_TAGS = 10_000
#: Cells of a notebook a page shows; after them, a cell of the course's (one that carries
#: nbgrader's marks) is shown, as many again at most (a student can write marks too), and
#: the others are one line. The grader runs no more than 500 code cells
#: (tools/grading/judged_execute.py); a feedback page of 6,000 cells took 16 s of CPU.
NOTEBOOK_CELLS = 600
#: Elements open at once (each one closed by its own end tag only).
MAX_OPEN = 64
#: Formatting elements left open at once (the parser's list of active formatting elements).
MAX_FORMATTING = 16

#: html5lib's formatting elements (the HTML standard's list).
FORMATTING = frozenset(
    {
        "a",
        "b",
        "big",
        "code",
        "em",
        "font",
        "i",
        "nobr",
        "s",
        "small",
        "strike",
        "strong",
        "tt",
        "u",
    }
)
#: Elements that have no end tag.
VOID = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
        "keygen",
        "frame",
        "basefont",
        "bgsound",
        "image",
    }
)
#: A tag as the HTML tokenizer begins one: ``<`` or ``</`` and an ASCII letter.
_TAG = re.compile(r"<(/?)([A-Za-z][^\s/>]*)")


class Budget:
    """What is left of one notebook's allowance (one per notebook cleaned)."""

    def __init__(self, source=NOTEBOOK_SOURCE, tags=NOTEBOOK_TAGS):
        self.source, self.tags = source, tags

    def take_source(self, text):
        """How many characters of the markdown ``text`` may be rendered, and why not
        the rest (None when all of it may)."""
        room = min(CELL_SOURCE, self.source)
        if len(text) <= room:
            self.source -= len(text)
            return len(text), None
        self.source -= room
        if room < CELL_SOURCE:
            why = f"the notebook's markdown passed {NOTEBOOK_SOURCE:,} characters in all"
        else:
            why = f"the cell is longer than {CELL_SOURCE:,} characters"
        return _line_start(text, room), why


def _line_start(text, index):
    """``index``, moved back to the start of its line when there is one after the first
    half (a cut at a line break keeps markdown's blocks whole)."""
    line = text.rfind("\n", index // 2, index)
    return line + 1 if line >= 0 else index


def cut_point(html, budget):
    """``(index, why)``: where in ``html`` the parser must stop, and why in a few words;
    ``(len(html), None)`` when all of it may be parsed. Takes the tags it lets through from
    ``budget`` (one pass, linear in the text)."""
    limit, why = len(html), None
    if limit > CELL_HTML:
        limit, why = CELL_HTML, f"it is longer than {CELL_HTML:,} characters of HTML"
    room = min(CELL_TAGS, budget.tags)
    opened, formatting, count = [], [], 0
    for match in _TAG.finditer(html, 0, limit):
        closing, name = match.group(1), match.group(2).lower()
        if closing:
            for stack in (opened, formatting):  # its own element only: never an implied end
                if name in stack:
                    del stack[len(stack) - 1 - stack[::-1].index(name)]
            continue
        count += 1
        if count > room:
            why = (
                f"it holds more than {CELL_TAGS:,} tags"
                if room == CELL_TAGS
                else f"the notebook's markup passed {NOTEBOOK_TAGS:,} tags in all"
            )
        elif name in FORMATTING and len(formatting) >= MAX_FORMATTING:
            why = f"it leaves more than {MAX_FORMATTING} formatting tags open"
        elif name not in VOID and len(opened) >= MAX_OPEN:
            why = f"its tags nest deeper than {MAX_OPEN}"
        else:
            if name in FORMATTING:
                formatting.append(name)
            if name not in VOID:
                opened.append(name)
            continue
        count -= 1
        limit = match.start()
        break
    budget.tags -= count
    return limit, why
