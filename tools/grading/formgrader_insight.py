"""What the class missed, from formgrader: a page of its own in formgrader's sidebar, beside the
gradebook, that lists the assignments and opens each one's page of the rules the class missed
(tools/insight, the page ``make insight`` writes).

* ``formgrader/insight``: the assignments of the gradebook, each with how many submissions are
  graded and a link to its page;
* ``formgrader/insight/<assignment>``: builds the page afresh from the judge's records (the
  course's command, ``tools/insight/build.py``, in a process of its own, as formgrader's
  buttons run theirs: formgrader_buttons.py), then opens it; when the build says why it could
  not (nothing graded yet), the list again, with its words as text;
* ``formgrader/insight/files/insight/<file>``: the page and the data files beside it (CSV and
  JSON Lines, as downloads), at addresses where the page's own relative links find them; and
  ``formgrader/insight/files/source/<lesson>/<lesson>.ipynb``, where its links to the lessons
  lead, opens that lesson in JupyterLab.

The page is served with a policy that puts it in a sandbox of its own origin, with its script
(the grid's sort) and downloads allowed: Jupyter's ``files/`` serves it sandboxed too, but
refuses the requests of a sandboxed page (they come from no origin), so its links led nowhere.
The list is rendered with formgrader's own templates, through the course's environment
(formgrader_pages.py: escaped values, scripts with a nonce); the sidebar's link is added to
nbgrader's ``base.tpl`` as it is read (:func:`with_link`). :func:`install` puts the addresses
in formgrader's own table, before its catch-all "page not found".
"""

import os
import re
import sys
from pathlib import Path
from urllib.parse import quote

from tornado import web

from tools.grading.course_dir import SAFE_NAME

ROOT = Path(__file__).resolve().parents[2]
#: The course's templates for formgrader (insight.tpl), read after nbgrader's own.
TEMPLATES = Path(__file__).resolve().parent / "templates" / "formgrader"
#: ``<lesson>/<lesson>.ipynb`` of the course's source/ folder (what the page's lesson links name).
SAFE_LESSON = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.@-]*)/\1\.ipynb")
SIDEBAR_END = "{%- endblock -%}\n        </ul>"
LINK = (
    '<li role="presentation"><a href="{{ base_url }}/formgrader/insight">'
    "What the class missed</a></li>\n          "
)


def with_link(source):
    """nbgrader's ``base.tpl`` with "What the class missed" last in its sidebar (any other
    template as it is)."""
    if "nav-stacked" not in source or SIDEBAR_END not in source:
        return source
    # after the block, which the pages that mark their own item "active" fill each their way
    return source.replace(SIDEBAR_END, SIDEBAR_END.replace("</ul>", LINK + "</ul>"), 1)


def command(course, assignment):
    """The course's command that builds ``assignment``'s page in ``course``: make insight's."""
    return [
        sys.executable,
        str(ROOT / "tools" / "insight" / "build.py"),
        "--course",
        str(course),
        assignment,
    ]


#: The files of ``<course>/insight/`` that are served: an assignment's page and its data.
SERVED = re.compile(
    r"(?P<assignment>[A-Za-z0-9][A-Za-z0-9_.@-]*?)(?P<kind>\.html|-grid\.csv|-rules\.csv|-verdicts\.jsonl)"
)
TYPES = {
    ".html": "text/html; charset=utf-8",
    "-grid.csv": "text/csv; charset=utf-8",
    "-rules.csv": "text/csv; charset=utf-8",
    "-verdicts.jsonl": "application/x-ndjson; charset=utf-8",
}
#: On top of the page's own policy (in the page): its own origin, its script and downloads only.
SANDBOX = "sandbox allow-scripts allow-downloads; frame-ancestors 'self'"


def _handlers():
    from nbgrader.server_extensions.formgrader.base import (
        BaseHandler,
        check_notebook_dir,
        check_xsrf,
    )

    class InsightList(BaseHandler):
        """The assignments of the gradebook, each with a link to its page."""

        @web.authenticated
        @check_xsrf
        @check_notebook_dir
        def get(self):
            self.write(self.listing())

        def listing(self, said=""):
            assignments = [
                {"name": a.name, "graded": len(a.submissions)}
                for a in sorted(self.gradebook.assignments, key=lambda a: a.name)
            ]
            return self.render(
                "insight.tpl", base_url=self.base_url, assignments=assignments, said=said
            )

    class InsightPage(InsightList):
        """Builds ``assignment``'s page, then opens it (or says why it could not)."""

        @web.authenticated
        @check_xsrf
        @check_notebook_dir
        async def get(self, assignment):
            from tools.grading.formgrader_buttons import run

            if not SAFE_NAME.fullmatch(assignment):
                raise web.HTTPError(400, "an assignment id is letters, digits and _ . @ - only")
            course = Path(self.coursedir.root)
            made = await run(command(course, assignment), cwd=os.fspath(course))
            if not made["success"] or not (course / "insight" / f"{assignment}.html").is_file():
                self.write(self.listing(made["log"].strip() or made.get("error", "")))
                return
            self.redirect(f"{self.base_url}/formgrader/insight/files/insight/{assignment}.html")

    class InsightFiles(BaseHandler):
        """The page and its data (from ``<course>/insight/``), and its links to the lessons."""

        @web.authenticated
        @check_notebook_dir
        def get(self, folder, name):
            course = Path(self.coursedir.root)
            if folder == "source":  # ../source/<lesson>/<lesson>.ipynb: the lesson, in JupyterLab
                lesson = course / "source" / name
                root = Path(self.settings.get("server_root_dir", "/")).expanduser().resolve()
                if not (SAFE_LESSON.fullmatch(name) and lesson.resolve().is_relative_to(root)):
                    raise web.HTTPError(404)
                where = quote(lesson.resolve().relative_to(root).as_posix())
                self.redirect(f"{self.base_url}/lab/tree/{where}")
                return
            found = SERVED.fullmatch(name)
            path = course / "insight" / name
            if not found or not path.is_file():
                raise web.HTTPError(404)
            self.set_header("Content-Type", TYPES[found["kind"]])
            self.set_header("Content-Security-Policy", SANDBOX)
            self.set_header("X-Content-Type-Options", "nosniff")
            if found["kind"] != ".html":
                self.set_header("Content-Disposition", f'attachment; filename="{name}"')
            self.write(path.read_bytes())

    return InsightList, InsightPage, InsightFiles


def install(web_app):
    """Add the addresses (the list, a lesson's page, the page's files) to formgrader's table,
    before its "page not found"; the number of tables they went into (one, once formgrader has
    added its handlers)."""
    from nbgrader.server_extensions.formgrader import handlers

    listing, page, files = _handlers()
    base = web_app.settings.get("base_url", "/").rstrip("/")
    ours = [
        web.url(f"{base}/formgrader/insight/?", listing),
        web.url(f"{base}/formgrader/insight/files/(insight)/([^/]+)", files),
        web.url(f"{base}/formgrader/insight/files/(source)/([^/]+/[^/]+\\.ipynb)", files),
        web.url(f"{base}/formgrader/insight/([^/]+)/?", page),
    ]
    return _insert(web_app.default_router, handlers.Template404, ours) + _insert(
        web_app.wildcard_router, handlers.Template404, ours
    )


def _insert(router, before, ours):
    """Put ``ours`` before the rule whose target is ``before``, in ``router`` or a router in it."""
    count = 0
    rules = getattr(router, "rules", [])
    for index, rule in enumerate(rules):
        if rule.target is before:
            rules[index:index] = ours
            return count + 1
        if hasattr(rule.target, "rules"):
            count += _insert(rule.target, before, ours)
    return count
