"""formgrader's manual grading page runs its own scripts and no other: a second wall
behind the cleaner (sanitize.py), for a submission the cleaner might one day miss.

formgrader renders a submission with an ``HTMLExporter`` and nbgrader's ``formgrade`` template,
whose page has inline scripts of its own (its variables, MathJax's set-up, the tooltips) and two
``onclick`` handlers, so a policy that forbids inline script would stop formgrader itself. The
course's nbgrader settings put the course's copy of that template first
(``templates/formgrade``, :data:`TEMPLATES`): every script in it carries a nonce made afresh for
each page (:class:`PageNonce`), the handlers are listeners set by one of those scripts, and the
page's first element is a Content-Security-Policy (:func:`grading_policy`) that runs a script
only when it carries that nonce: an injected ``<script>``, ``onerror=`` or ``javascript:`` link
runs nothing. The policy has no ``'unsafe-inline'``, no ``'unsafe-eval'`` and no ``'self'`` in
``script-src`` (under ``'self'`` any ``.js`` file the teacher's server serves, a student's
among them, could be loaded as a script); scripts come from nowhere else but MathJax's folder on
the CDN (MathJax loads its parts by itself, without the nonce).
"""

import os
import secrets

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

#: The course's template folders, put before nbgrader's (nbgrader_config.py).
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
#: Where the page's MathJax comes from (nbconvert's own CDN address, its folder).
MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/"
MATHJAX_FOLDER = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/"


def grading_policy(nonce, mathjax=True):
    """The Content-Security-Policy of one of formgrader's pages whose scripts carry ``nonce``
    (with MathJax's CDN folder, for the grading page)."""
    cdn = f" {MATHJAX_FOLDER}" if mathjax else ""
    return "; ".join([
        "default-src 'self'",
        f"script-src 'nonce-{nonce}'{cdn}",
        f"style-src 'self' 'unsafe-inline'{cdn}",
        f"font-src 'self' data:{cdn}",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "frame-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
    ])


class PageNonce(Preprocessor):
    """Gives the page about to be rendered a nonce of its own and the policy that names it
    (``resources['csp_nonce']``, ``resources['csp_policy']``, ``resources['csp_mathjax']``),
    which the course's ``formgrade`` template writes into the page. On by default."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        nonce = secrets.token_urlsafe(18)
        resources["csp_nonce"] = nonce
        resources["csp_policy"] = grading_policy(nonce)
        resources["csp_mathjax"] = MATHJAX
        return nb, resources
