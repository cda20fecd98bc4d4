"""The page's charts, drawn by matplotlib as SVG put into the page itself (nothing fetched;
text kept as text, so that it reads and scales). Each chart shows only the course's own
words and counts: no name and no value of a student's."""

import io
import re

#: Colours that stay apart for every colour vision and in grey (Okabe and Ito's blue), and
#: each bar carries its count as text, so that nothing depends on colour.
BAR = "#0072B2"


def _figure(size):
    """A matplotlib figure of ``size`` inches, with no pyplot (no GUI, no global state)."""
    import matplotlib
    from matplotlib.figure import Figure

    matplotlib.rcParams.update(
        {
            "svg.fonttype": "none",
            "svg.hashsalt": "mcp-lesson",
            "font.family": "DejaVu Sans",
            "font.size": 10,
        }
    )
    return Figure(figsize=size)


def bars(labels, counts, title, label, xlabel="students"):
    """A horizontal bar chart as an inline SVG element (a ``str``), with ``label`` as what it
    says to a screen reader."""
    width, left = 4.4, 1.75  # inches: the labels' room is fixed (tight_layout costs a draw)
    height = 0.95 + 0.27 * len(labels)
    fig = _figure((width, height))
    ax = fig.subplots()
    fig.subplots_adjust(left=left / width, right=0.96, bottom=0.55 / height, top=1 - 0.3 / height)
    positions = list(range(len(labels)))[::-1]
    ax.barh(positions, counts, color=BAR, height=0.6)
    ax.set_yticks(positions, labels)
    top = max(counts or [0]) or 1
    ax.set_xlim(0, top * 1.18)
    for y, count in zip(positions, counts):
        ax.text(count + top * 0.02, y, str(count), va="center")
    ax.set_title(title, loc="left", fontsize=10)
    ax.set_xlabel(xlabel)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return _inline(out.getvalue(), label)


def _inline(svg, label):
    """matplotlib's SVG document as an element of the page: no XML prologue, no doctype, a
    role and a label of its own (``label`` is escaped by the caller's page: here it is the
    course's own words, escaped again to be sure)."""
    import html

    start = svg.index("<svg")
    svg = svg[start:]
    svg = re.sub(
        r"<svg\b",
        f'<svg role="img" aria-label="{html.escape(label, quote=True)}" focusable="false"',
        svg,
        count=1,
    )
    # The title matplotlib writes into <metadata> and the ids it draws with stay; the comments go.
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S)
