# Commands for everyone (the README says more):
#   make lab-learner   the course, learner copies (solutions taken out)
#   make lab           the lesson masters, with worked solutions
#   make test          the fast tier of the tests (make test-all: every test)
# Each creates (or refreshes) the virtual environment in .venv first.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The conformance suite's install (see its rule below).
CONFORMANCE := tools/conformance/node_modules/.installed
# The TypeScript SDK (its schemas for lesson 07's peer, its client for lesson 11), pinned by
# tools/ts_peer/package-lock.json; the stamp is the digest tests/peers/test_ts_peer.py checks.
TS_PEER := tools/ts_peer/node_modules/.mcp_lesson_installed
# Real MCP servers from the npm registry (server-everything), pinned by
# tools/real_servers/package-lock.json, for the tap's tests of real traffic (full tier).
REAL_SERVERS := tools/real_servers/node_modules/.installed
# JupyterHub's proxy (configurable-http-proxy), pinned by tools/hub/package-lock.json, for
# make hub and its test (full tier).
HUB_PROXY := tools/hub/node_modules/.installed
ARGS   ?=
PORT   ?= 8866
# Jupyter refuses to start as root unless told; CI and containers run as root.
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

# What is given on the command line (make test ARGS=-x) is for this make only:
# it must not reach a make that a recipe's program starts (the browser test
# runs `make app`, which would hand Voila the ARGS meant for pytest). Make
# passes such variables on through MAKEFLAGS and through the environment.
MAKEOVERRIDES :=
unexport ARGS PORT NB FORCE PYTHON PKG ALL EVERY

# Python writes its compiled modules (__pycache__, ignored by git) for everything make runs,
# even where the shell says PYTHONDONTWRITEBYTECODE, as some containers do: pytest caches
# its rewritten test modules and plugins there, and without that cache every pytest start
# rewrites them again (hypothesis's hundred modules: 5.1 s against 2.9 s for a graduation
# that runs no test, measured 2026-12-02).
unexport PYTHONDONTWRITEBYTECODE

# --- the Python of .venv -------------------------------------------------------
# The oldest Python pyproject.toml accepts (its requires-python reads ">=X.Y").
MIN_PYTHON := $(shell sed -n 's/^requires-python *= *">= *\([0-9]*\.[0-9]*\)".*/\1/p' pyproject.toml)
comma := ,
# Run by a Python, prints "3.11 ok /usr": its version, whether that is at least
# MIN_PYTHON ("ok" or "old"), and the installation it comes from.
ABOUT_PYTHON := -I -S -c 'import sys; v = sys.version_info; \
    print("%d.%d" % v[:2], "ok" if v >= ($(subst .,$(comma) ,$(MIN_PYTHON))) else "old", sys.base_prefix)'
# The same for PYTHON, worked out only when needed.
PYTHON_ABOUT = $(shell $(PYTHON) $(ABOUT_PYTHON) 2>/dev/null)
VENV_ABOUT := $(if $(wildcard $(VENV)),$(shell $(BIN)/python $(ABOUT_PYTHON) 2>/dev/null || echo none))
# Why .venv must be made again (empty when it is fine): its Python does not run,
# is older than MIN_PYTHON, or is not the Python that PYTHON=... names. (Without
# PYTHON=..., a working .venv is kept, whichever Python made it.)
ifeq ($(VENV_ABOUT),none)
  VENV_PROBLEM := its Python does not run
else ifeq ($(word 2,$(VENV_ABOUT)),old)
  VENV_PROBLEM := it holds Python $(word 1,$(VENV_ABOUT)), older than the $(MIN_PYTHON) that pyproject.toml requires
else ifneq ($(VENV_ABOUT),)
  ifneq ($(filter command line environment,$(origin PYTHON)),)
    ifneq ($(VENV_ABOUT),$(PYTHON_ABOUT))
      VENV_PROBLEM := it holds Python $(word 1,$(VENV_ABOUT)) from $(word 3,$(VENV_ABOUT)), not PYTHON=$(PYTHON)
    endif
  endif
endif
# Stops with a hint when PYTHON cannot make the venv.
define CHECK_PYTHON
case "$(word 2,$(PYTHON_ABOUT))" in \
    ok) ;; \
    old) echo "PYTHON=$(PYTHON) is Python $(word 1,$(PYTHON_ABOUT)); the course needs $(MIN_PYTHON) or newer."; \
         echo "Name one: make $(or $(MAKECMDGOALS),venv) PYTHON=python$(MIN_PYTHON)"; exit 1;; \
    *) echo "PYTHON=$(PYTHON) does not run. Name a Python $(MIN_PYTHON) or newer:"; \
       echo "make $(or $(MAKECMDGOALS),venv) PYTHON=python$(MIN_PYTHON)"; exit 1;; \
esac
endef

.PHONY: lab lab-learner lint test test-all export lessons learner graduate mutants app bench bench-tap bench-grading clean venv hub FORCE

venv: $(STAMP) $(CONFORMANCE) $(TS_PEER) $(REAL_SERVERS) $(HUB_PROXY)

# A folder of pinned JavaScript packages, installed from the npm registry by `npm ci` from
# its committed lock file into its own node_modules (ignored by git): $(1) the folder, $(2)
# what it holds, $(3) more npm options, $(4) the command that writes the stamp. Only the
# full tier uses them: without npm, setup says so in one line and goes on (and tries again
# next time).
define npm_ci
	@if ! command -v npm >/dev/null 2>&1; then \
	    echo "npm not found: not installed: $(2), for the full tier (apt-get install npm)"; \
	elif (cd $(1) && npm ci --no-audit --no-fund --loglevel=error --update-notifier=false $(3) >/dev/null); then \
	    $(4); echo "Installed $(2) in $(1)/node_modules."; \
	else \
	    echo "npm ci failed in $(1): not installed: $(2), for the full tier"; \
	fi
endef

# The official MCP conformance suite and the Node.js 22 it needs (Debian's Node 20 cannot
# run it), pinned by tools/conformance/package-lock.json.
$(CONFORMANCE): tools/conformance/package.json tools/conformance/package-lock.json
	$(call npm_ci,tools/conformance,the conformance suite,,touch $@)

# The TypeScript SDK; its stamp is the digest of the package files, which
# tests/peers/test_ts_peer.py checks.
$(TS_PEER): tools/ts_peer/package.json tools/ts_peer/package-lock.json
	$(call npm_ci,tools/ts_peer,the TypeScript SDK,--ignore-scripts,cat tools/ts_peer/package.json tools/ts_peer/package-lock.json | sha256sum | cut -d' ' -f1 | tr -d '\n' > $@)

# Real MCP servers from the npm registry (server-everything).
$(REAL_SERVERS): tools/real_servers/package.json tools/real_servers/package-lock.json
	$(call npm_ci,tools/real_servers,real MCP servers,--ignore-scripts,touch $@)

$(HUB_PROXY): tools/hub/package.json tools/hub/package-lock.json
	$(call npm_ci,tools/hub,JupyterHub's proxy,--ignore-scripts,touch $@)

# Made again when pyproject.toml, this Makefile or the course's Jupyter
# settings change, and when VENV_PROBLEM says so. pip works quietly, so the
# recipe says beforehand what takes time.
$(STAMP): pyproject.toml Makefile tools/overrides.json tools/course_jupyter.sh $(if $(VENV_PROBLEM),FORCE)
	@if [ -n "$(VENV_PROBLEM)" ] || [ ! -d $(VENV) ]; then $(CHECK_PYTHON); fi
	@if [ -n "$(VENV_PROBLEM)" ]; then echo "Making .venv again: $(VENV_PROBLEM)."; rm -rf $(VENV); fi
	@if [ -d $(VENV) ]; then \
	    echo "Refreshing .venv (a setup file changed; about 20 s)..."; \
	else \
	    echo "Setting up .venv with $(PYTHON) (Python $(word 1,$(PYTHON_ABOUT))): JupyterLab, Voila, the MCP SDK"; \
	    echo "and the test tools, about 600 MB. The first time takes a minute or two..."; \
	    $(PYTHON) -m venv $(VENV); \
	fi
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
	@# The course's Jupyter settings (see the script).
	@bash tools/course_jupyter.sh $(BIN)
	@touch $(STAMP)
	@echo ".venv is ready ($$($(BIN)/python --version))."

# JupyterLab on this machine only (127.0.0.1; see the README for a remote
# machine or a container). Each opens its own workspace, whose name ends the
# browser tab's title: "... - learner" or "... - solutions".
# lab-learner is rooted at notebooks/learner/, so its file browser and links
# stay among the learner copies; lab shows everything, masters included.
# JupyterLab keeps a workspace (its open tabs, and so the kernels they start) per
# user, by name: each clone keeps its own in its .venv, so that a second clone of
# the course never reopens the first one's tabs.
WORKSPACES := --LabApp.workspaces_dir=$(CURDIR)/$(VENV)/lab-workspaces
lab-learner: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks/learner $(WORKSPACES) \
	    --LabApp.default_url=/lab/workspaces/learner/tree/00_start_here.ipynb $(ROOT_FLAG) $(ARGS)

lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks $(WORKSPACES) \
	    --LabApp.default_url=/lab/workspaces/solutions/tree/00_start_here.ipynb $(ROOT_FLAG) $(ARGS)

# The linter, the formatter's check and the type checker (pyproject.toml configures them;
# the maintainer's guide says which rules and why). Both tiers run them first.
lint: $(STAMP)
	$(BIN)/ruff check --quiet .
	$(BIN)/ruff format --check --quiet .
	$(BIN)/mypy

# The fast tier (under two minutes) leaves out the tests marked "full"; the
# full tier, which CI runs, is every test (conftest.py says which are "full").
# Only the full tier needs the npm trees: make test installs none of them.
# The fast tier's tests wait more than they compute, so it runs a worker more than the
# cores (tests/scheduling.py says why; ARGS="-n 2" chooses two).
test: $(STAMP) lint
	$(BIN)/python -m pytest -m "not full" $(ARGS)

test-all: $(STAMP) $(CONFORMANCE) $(TS_PEER) $(REAL_SERVERS) $(HUB_PROXY) lint
	$(BIN)/python -m pytest $(ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py $(ARGS)

# The tap's cost: round trips direct, through a bare relay and through the tap, side by
# side (stdio; HTTP with streamed and JSON answers), and a flood of lines.
bench-tap: $(STAMP)
	$(BIN)/python benchmarks/bench_tap.py $(ARGS)

# A class of 30 synthetic students graded, sandbox and all (a few minutes).
bench-grading: $(STAMP)
	$(BIN)/python benchmarks/bench_grading.py $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

# Re-execute the lesson masters from fresh kernels and save their outputs
# (NB=notebooks/03_classifying.ipynb for one), then refresh the learner copies.
# It exports first (the core, and mcp_lesson/core/graded.py, the data of the masters'
# graded exercises), so that a lesson's self-check already knows a new exercise when the
# lesson runs: one run leaves the saved outputs right.
lessons: $(STAMP)
	@$(MAKE) --no-print-directory export
	$(BIN)/python tools/execute_lessons.py $(NB)
	$(BIN)/python tools/make_learner.py

# The package's core, mcp_lesson/core/: the exercise cells of the masters that
# mcp_lesson/exercises/lessons.py marks core=True,
# exported as a learner's package is. Commit it with the masters it comes from;
# tests/exercises/test_core.py fails when the two drift apart.
export: $(STAMP)
	$(BIN)/python -c "from mcp_lesson.exercises.core_export import export_core; print('exported', export_core('notebooks', 'mcp_lesson/core'))"

# Learner copies: the lesson masters with their solutions replaced by stubs.
learner: $(STAMP)
	$(BIN)/python tools/make_learner.py $(if $(FORCE),--force)

# Graduation: the course's own tests, run against a learner's package (by
# default the one the learner copies export, notebooks/learner/my_mcp; PKG=dir for
# another; ALL=1 lists every failure, not only the first few). Exits 0 when
# everything the package has written passes and it is complete up to a lesson
# (EVERY=1, for CI: only when every lesson is written and passes), 1 when a
# function it has written fails: then make adds its own line, "make: ***".
graduate: $(STAMP)
	@$(BIN)/python tools/graduate.py $(if $(filter-out 0 no,$(ALL)),--all)$(if $(filter-out 0 no,$(EVERY)), --every-lesson) $(if $(PKG),'$(subst ','\'',$(PKG))')

# Mutation testing of the judge: mutmut mutates the masters' exported package, graduation is
# the test; prints the score. MODULES="conversation revisions" picks modules of the package
# (default: all, about 875 mutants at about 9 s each: hours, so not in CI).
mutants: $(STAMP)
	@$(BIN)/python tools/mutants.py $(MODULES)

# Classroom mode: the playground as a standalone page (Voila), on loopback.
app: $(STAMP)
	@# Signing the notebook (in the user's Jupyter database; the file is
	@# unchanged) stops Voila's "Notebook is not trusted" line.
	@$(BIN)/jupyter trust notebooks/05_playground.ipynb >/dev/null
	$(BIN)/voila notebooks/05_playground.ipynb --no-browser --port=$(PORT) \
	    --Voila.ip=127.0.0.1 --Voila.config_file_paths=tools/classroom $(ARGS)

# A class on a real JupyterHub, on this machine (127.0.0.1:$(HUB_PORT)), as root: the users'
# environment (HUB_ENV, made once from the system's Python), the teacher's and the students'
# accounts (HUB_STUDENTS: one name a line), nbgrader's exchange, then the hub until Ctrl-C.
# docs/teaching.md, "A class on JupyterHub", says more.
HUB_PORT     ?= 8000
HUB_TEACHER  ?= teacher
HUB_STUDENTS ?= classroom/students.txt
HUB_EXCHANGE ?= /srv/nbgrader/exchange
HUB_ENV      ?= /opt/mcp_lesson/hub-env
unexport HUB_PORT HUB_TEACHER HUB_STUDENTS HUB_EXCHANGE HUB_ENV

hub: $(STAMP) $(HUB_PROXY)
	@$(BIN)/python tools/hub/hub.py --port $(HUB_PORT) --teacher '$(HUB_TEACHER)' \
	    --students '$(HUB_STUDENTS)' --exchange '$(HUB_EXCHANGE)' --env '$(HUB_ENV)'

# --- A teacher's day with nbgrader (tools/grading; the README says more) -------------
# make release [ASSIGNMENT=03_classifying]  the graded lessons, into $(CLASSROOM)/release/
# make collect FROM=<folder>                 <folder>/<student>/<assignment>/ into submitted/
# make autograde [TIMEOUT=30]                into $(CLASSROOM)/gradebook.db (SQLite)
# make feedback                              an HTML page per student and notebook
# make grades                                $(CLASSROOM)/grades.csv
CLASSROOM ?= classroom
GRADING   := $(BIN)/python tools/grading/classroom.py --course $(CLASSROOM)
unexport FROM ASSIGNMENT TIMEOUT CLASSROOM
.PHONY: release collect autograde feedback grades

release: $(STAMP)
	$(GRADING) release $(ASSIGNMENT)

collect: $(STAMP)
	$(GRADING) collect $(FROM)

autograde: $(STAMP)
	$(GRADING) autograde $(ASSIGNMENT) $(if $(TIMEOUT),--timeout $(TIMEOUT))

feedback: $(STAMP)
	$(GRADING) feedback $(ASSIGNMENT)

grades: $(STAMP)
	$(GRADING) grades

# The course in the browser (JupyterLite, nothing to install): a static site in
# build/site/, rebuilt only when its inputs change (FORCE=1 rebuilds anyway), and
# served on loopback only. Open the address site-serve prints.
SITE_PORT ?= 8867

.PHONY: site site-serve

site: $(STAMP)
	$(BIN)/python tools/site/build.py $(if $(FORCE),--force)

site-serve: site
	$(BIN)/python tools/site/serve.py --port $(SITE_PORT)

# What the class missed (tools/insight): after make autograde, a page for the teacher of each
# graded assignment (ASSIGNMENT=03_classifying for one), with the rules the class missed most, in
# $(CLASSROOM)/insight/, beside its data as CSV and JSON Lines. docs/teaching.md says how to read it.
.PHONY: insight
insight: $(STAMP)
	@$(BIN)/python -m tools.insight --course '$(CLASSROOM)' $(ASSIGNMENT)
