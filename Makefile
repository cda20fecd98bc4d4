# Two commands for everyone:  make lab   and   make test
# Both create (or refresh) the virtual environment in .venv first.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ARGS   ?=
PORT   ?= 8866
# Jupyter refuses to start as root unless told; CI and containers run as root.
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
# A pasted message may be bigger than the web socket's default 10 MiB limit.
BIG_MESSAGES := "{'websocket_max_message_size': 104857600}"

.PHONY: lab test lessons learner app bench clean venv

venv: $(STAMP)

# Rebuilt when pyproject.toml or this Makefile changes, or when the venv's
# Python no longer runs (say, after a system Python upgrade).
$(STAMP): pyproject.toml Makefile tools/overrides.json tools/course_jupyter.sh
	@$(BIN)/python -c "" 2>/dev/null || (rm -rf $(VENV) && $(PYTHON) -m venv $(VENV))
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
	@# No news pop-up; nbgrader's teacher panels hidden (see the script).
	bash tools/course_jupyter.sh $(BIN)
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks \
	    --LabApp.default_url=/lab/tree/00_start_here.ipynb \
	    --ServerApp.tornado_settings=$(BIG_MESSAGES) $(ROOT_FLAG) $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

# Re-execute the lesson masters from fresh kernels and save their outputs
# (NB=notebooks/03_classifying.ipynb for one), then refresh the learner copies.
lessons: $(STAMP)
	$(BIN)/python tools/execute_lessons.py $(NB)
	$(BIN)/python tools/make_learner.py

# Learner copies: the lesson masters with their solutions replaced by stubs.
learner: $(STAMP)
	$(BIN)/python tools/make_learner.py $(if $(FORCE),--force)

# Classroom mode: the playground as a standalone page (Voila), on loopback.
app: $(STAMP)
	$(BIN)/voila notebooks/05_playground.ipynb --no-browser --port=$(PORT) \
	    --Voila.ip=127.0.0.1 --Voila.config_file_paths=tools/classroom $(ARGS)
