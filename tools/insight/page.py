"""The teacher's page of one assignment: what the class missed (one HTML file, nothing fetched).

Every text of a student's (a name, an id, a value their function gave) goes into the page
through :func:`text`, escaped: it is shown, never rendered. The page carries the course's
Content-Security-Policy for its pages (:data:`PAGE_POLICY`: nothing fetched, no form, no
base), with one script allowed by its hash: the page's own few lines
that sort the grid. Without script the grid reads as it is (sorted by student), and the
CSV beside the page holds the same data.
"""

import base64
import hashlib
import html

from tools.insight import charts
from tools.insight.classdata import missed_rules

#: The policy of the course's pages that run nothing (tools/grading/sanitize.py's ``PAGE_POLICY``,
#: which a test holds this to; not imported, since that module brings nbconvert: seconds of the
#: teacher's wait): styles and images of its own, nothing fetched, no form, no base.
PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
    "base-uri 'none'; form-action 'none'"
)
#: How many of the rules the class missed the page lists (the CSV and JSON Lines hold them all).
TOP_RULES = 25
#: How many different wrong answers the page shows for a rule.
TOP_VALUES = 5

SORT_SCRIPT = """\
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th button[data-col]").forEach(function (button) {
    button.addEventListener("click", function () {
      var col = Number(button.getAttribute("data-col")), th = button.parentNode;
      var up = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th[aria-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-key"), y = b.cells[col].getAttribute("data-key");
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
        return up ? c : -c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""

STYLE = """\
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem;
       color: #1a1a1a; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #999; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
figure { margin: 0; border: 1px solid #bbb; padding: .5rem; max-width: 26rem; }
figure svg { width: 100%; height: auto; }
figcaption { font-size: .95rem; }
table { border-collapse: collapse; }
th, td { border: 1px solid #888; padding: .25rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #eee; position: sticky; top: 0; }
th button { font: inherit; font-weight: bold; background: none; border: 0; padding: 0; cursor: pointer;
            text-decoration: underline; color: #1a1a1a; }
td.full { background: #e8f3ea; } td.missed { background: #fbe9e7; font-weight: bold; }
td.todo, td.absent { color: #333; font-style: italic; }
ol.rules > li { margin-bottom: 1rem; } ol.rules p { margin: .2rem 0; }
.rule { font-size: 1.05rem; font-weight: bold; }
.who { font-size: .95rem; }
code { background: #f2f2f2; padding: 0 .2rem; }
a { color: #0645ad; }
"""


def text(value):
    """A text for the page: escaped, whatever it is (the one way a student's text goes in)."""
    return html.escape(str(value), quote=True)


def _policy():
    digest = base64.b64encode(hashlib.sha256(SORT_SCRIPT.encode("utf-8")).digest()).decode("ascii")
    return f"{PAGE_POLICY}; script-src 'sha256-{digest}'"


def _points(value):
    return f"{value:g}"


def _who(klass, student):
    name = klass.students.get(student) or ""
    return f"{student} ({name})" if name else student


def _cell_of(klass, student, exercise):
    """(css class, words, sort key) of one square of the grid."""
    if student not in klass.scores:
        return "absent", "not handed in", -2
    score, top = klass.scores[student].get(exercise.cell, (0.0, exercise.points))
    passed, failed, todo = klass.cases(student, exercise.name)
    if todo and not passed:
        return "todo", "not written yet", -1
    if top and score >= top:
        return "full", f"\u2713 {_points(score)}/{_points(top)}", score
    cases = passed + failed + todo
    said = f"\u2717 {_points(score)}/{_points(top)}"
    if cases:
        said += f", {passed} of {cases} cases"
    return "missed", said, score - (failed / (cases or 1)) * 0.001


def _link(klass, exercise):
    if not exercise.source:
        return ""
    where = f"lesson {exercise.notebook[:2]}"
    if exercise.heading:
        where += f", \u201c{exercise.heading}\u201d"
    href = "../" + exercise.source + (f"#{exercise.anchor}" if exercise.anchor else "")
    cell = f" (cell {text(exercise.cell_id)})" if exercise.cell_id else ""
    return f'taught in <a href="{text(href)}">{text(where)}</a>{cell}'


def _exercise_section(klass):
    handed_in = [s for s in klass.students if s in klass.scores]
    parts = [
        '<section aria-labelledby="exercises"><h2 id="exercises">Exercise by exercise</h2>',
        "<table><caption>Full marks, exercise by exercise, among the "
        f"{len(handed_in)} students who handed the assignment in</caption><thead><tr>"
        '<th scope="col">Exercise</th><th scope="col">Points</th><th scope="col">Full marks</th>'
        '<th scope="col">Some cases missed</th><th scope="col">Not written yet</th></tr></thead><tbody>',
    ]
    charts_html = []
    totals = {s: sum(score for score, _ in klass.scores[s].values()) for s in handed_in}
    top_total = sum(e.points for e in klass.exercises)
    for exercise in klass.exercises:
        kinds = [_cell_of(klass, s, exercise)[0] for s in handed_in]
        full, missed, todo = kinds.count("full"), kinds.count("missed"), kinds.count("todo")
        share = f"{full} ({100 * full / len(handed_in):.0f}%)" if handed_in else "0"
        parts.append(
            f'<tr><th scope="row">{text(exercise.name)}</th><td>{_points(exercise.points)}</td>'
            f"<td>{share}</td><td>{missed}</td><td>{todo}</td></tr>"
        )
        bins = _case_bins(klass, exercise, handed_in)
        label = f"{exercise.name}: students by the share of its cases they passed; " + "; ".join(
            f"{name}: {count}" for name, count in bins
        )
        svg = charts.bars(
            [name for name, _ in bins],
            [count for _, count in bins],
            f"{exercise.name} ({_points(exercise.points)} pt): cases passed",
            label,
        )
        charts_html.append(
            f"<figure>{svg}<figcaption>{text(exercise.name)}: {share} of "
            f"{len(handed_in)} with full marks</figcaption></figure>"
        )
    parts.append("</tbody></table>")
    step = max(1.0, round(top_total / 10)) if top_total else 1.0
    edges = [i * step for i in range(int(top_total // step) + 1)]
    counts = [0] * len(edges)
    for total in totals.values():
        counts[min(int(total // step), len(edges) - 1)] += 1
    names = [
        f"{_points(edge)}-{_points(min(edge + step, top_total))}" if step > 1 else _points(edge)
        for edge in edges
    ]
    label = "the assignment's points, students by their total; " + "; ".join(
        f"{n}: {c}" for n, c in zip(names, counts)
    )
    svg = charts.bars(
        names, counts, f"{klass.assignment}: total points (of {_points(top_total)})", label
    )
    parts.append("</section>")
    figures = [
        '<section aria-labelledby="charts"><h2 id="charts">The class in charts</h2>'
        "<p>How many students passed what share of each exercise's cases, and their totals.</p>"
        '<div class="charts">',
        f"<figure>{svg}<figcaption>Totals of the {len(handed_in)} students who handed it "
        f"in (of {_points(top_total)} points)</figcaption></figure>",
        *charts_html,
        "</div></section>",
    ]
    return "".join(parts), "".join(figures)


def _case_bins(klass, exercise, students):
    names = [
        "not written yet",
        "under a quarter",
        "a quarter or more",
        "half or more",
        "three quarters or more",
        "every case",
    ]
    counts = [0] * len(names)
    unknown = 0  # graded before the judge kept its verdicts
    for student in students:
        passed, failed, todo = klass.cases(student, exercise.name)
        cases = passed + failed + todo
        if not cases:
            unknown += 1
        elif todo and not passed:
            counts[0] += 1
        elif passed == cases:
            counts[5] += 1
        else:
            counts[1 + min(3, int(4 * passed / cases))] += 1
    return list(zip(names, counts)) + ([("no verdict recorded", unknown)] if unknown else [])


def _rules_section(klass, missed):
    by_name = {e.name: e for e in klass.exercises}
    handed_in = sum(1 for s in klass.students if s in klass.scores)
    parts = ['<section aria-labelledby="rules"><h2 id="rules">The rules the class missed most</h2>']
    if not missed:
        parts.append(
            "<p>No student missed a rule (or no verdict was recorded: grade the class with "
            "<code>make autograde</code> first).</p></section>"
        )
        return "".join(parts)
    more = len(missed) - TOP_RULES
    parts.append(
        f"<p>{min(len(missed), TOP_RULES)} of the {len(missed)} rules missed, most students first"
        + (f" (the other {more} are in the CSV and JSON Lines files)" if more > 0 else "")
        + '. A function not written yet misses no rule: the grid shows it.</p><ol class="rules">'
    )
    for rule in missed[:TOP_RULES]:
        exercise = by_name.get(rule.exercise)
        count = len(rule.students)
        share = f" ({100 * count / handed_in:.0f}%)" if handed_in else ""
        names = ", ".join(text(_who(klass, s)) for s in rule.students)
        values = "".join(
            f"<li><code>{text(value)}</code>: {n} student{'s' * (n != 1)}</li>"
            for value, n in rule.values[:TOP_VALUES]
        )
        calls = ", ".join(f"<code>{text(c)}</code>" for c in rule.calls[:3]) + (
            f" and {len(rule.calls) - 3} more" if len(rule.calls) > 3 else ""
        )
        parts.append(
            f'<li><p class="rule">{text(rule.rule)}</p>'
            f'<p><span class="exercise">{text(rule.exercise)}</span>: missed by '
            f'<strong class="count">{count} student{"s" * (count != 1)}</strong>{share}'
            + (f"; checked by {calls}" if calls else "")
            + "</p>"
            + (f"<p>{_link(klass, exercise)}</p>" if exercise and exercise.source else "")
            + f'<p class="who">Who: <span class="names">{names}</span></p>'
            + (
                f"<details><summary>What they gave instead</summary><ul>{values}</ul></details>"
                if values
                else ""
            )
            + "</li>"
        )
    parts.append("</ol></section>")
    return "".join(parts)


def _grid_section(klass):
    top_total = sum(e.points for e in klass.exercises)
    head = [
        '<th scope="col" aria-sort="ascending"><button type="button" data-col="0">Student</button></th>',
        '<th scope="col"><button type="button" data-col="1">Total</button></th>',
    ]
    for i, exercise in enumerate(klass.exercises, start=2):
        head.append(
            f'<th scope="col"><button type="button" data-col="{i}">{text(exercise.name)}</button></th>'
        )
    rows = []
    for student in klass.students:
        cells = [f'<th scope="row" data-key="{text(student)}">{text(_who(klass, student))}</th>']
        if student in klass.scores:
            total = sum(score for score, _ in klass.scores[student].values())
            cells.append(f'<td data-key="{total:g}">{_points(total)}/{_points(top_total)}</td>')
        else:
            cells.append('<td data-key="-1" class="absent">not handed in</td>')
        for exercise in klass.exercises:
            kind, words, key = _cell_of(klass, student, exercise)
            cells.append(f'<td class="{kind}" data-key="{key:g}">{text(words)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<section aria-labelledby="grid"><h2 id="grid">Who needs help with what</h2>'
        "<p>\u2713 full marks; \u2717 points lost, with the share of the cases passed; "
        "<em>not written yet</em>: the function is still the stub. Choose a column's name to sort "
        "by it (again to reverse).</p>"
        '<div><table class="sortable"><caption>Students and exercises of '
        f"{text(klass.assignment)}</caption><thead><tr>{''.join(head)}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def build(klass, files=()):
    """The page (a ``str``) of ``klass`` (:class:`tools.insight.classdata.Class`); ``files``
    are (name, what it holds) of the data files written beside it, linked from the page."""
    missed = missed_rules(klass)
    table, figures = _exercise_section(klass)
    handed_in = sum(1 for s in klass.students if s in klass.scores)
    links = "".join(
        f'<li><a href="{text(name)}">{text(name)}</a>: {text(what)}</li>' for name, what in files
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_policy()}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>What the class missed: {text(klass.assignment)}</title><style>{STYLE}</style></head>"
        f"<body><main><h1>What the class missed: {text(klass.assignment)}</h1>"
        f"<p>{handed_in} of the {len(klass.students)} students of the gradebook handed it in; "
        f"{len(klass.exercises)} graded exercises. Every case the judge ran is counted, with the rule "
        "the lesson gives it.</p>"
        '<nav aria-label="On this page"><ul><li><a href="#exercises">Exercise by exercise</a></li>'
        '<li><a href="#rules">The rules the class missed most</a></li>'
        '<li><a href="#grid">Who needs help with what</a></li>'
        '<li><a href="#charts">The class in charts</a></li></ul></nav>'
        + (f"<p>The same data, for your own tools:</p><ul>{links}</ul>" if links else "")
        + table
        + _rules_section(klass, missed)
        + _grid_section(klass)
        + figures
        + f"</main><script>{SORT_SCRIPT}</script></body></html>\n"
    )
