# Two targets a newcomer needs: `make lab` (open the course) and `make test` (run every test).
# Both create a private virtual environment in .venv, so nothing is installed system-wide.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup lab test test-fake-cuda fuzz bench clean student student-branch grade

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,ui,instructor]'
	touch $(STAMP)

# JupyterLab on the lectures folder, opening the start page (tools/lab.sh: also as root and
# without a display; it prints the address to open and how to stop it). `make lab PORT=8890`.
PORT ?= 8888
lab: setup
	@JUPYTER=$(CURDIR)/$(BIN)/jupyter PORT=$(PORT) tools/lab.sh

# The instructor's edition (nbgrader; README, "For instructors"). `make student` writes the
# student copies to course/release/: no solutions, no hidden tests. `make grade
# SUBMISSIONS=dir` autogrades a folder of submitted notebooks into grading/grades.csv and
# grading/feedback/<student>/ (TIMEOUT: seconds a cell may run before it counts as failed).
SUBMISSIONS ?= submissions
TIMEOUT ?= 60
student: setup
	$(BIN)/python tools/instructor.py student --out course/release

# the student copies committed to the branch `student` (README: push it where Binder serves it)
student-branch: setup
	$(BIN)/python tools/instructor.py student-branch --branch student

grade: setup
	$(BIN)/python tools/instructor.py grade $(SUBMISSIONS) --out grading --timeout $(TIMEOUT)

# Unit tests, the PyTorch oracle tests (they skip, saying so, when torch is absent), every
# lecture re-executed and compared with its stored outputs by nbval, and the browser tests
# (tests/ui: each lecture run in JupyterLab in Chromium; they skip, saying so, without Chromium;
# screenshots go to render/ui/). The stored graph SVGs were drawn by the pip-installed
# Graphviz; LABKIT_GRAPHVIZ=wasm uses it even where `dot` is installed, whose other Graphviz
# version would lay the graphs out differently.
test: setup
	LABKIT_GRAPHVIZ=wasm $(BIN)/python -m pytest --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg -p no:cacheprovider tests course/lectures

# The cuda code path on a machine without a GPU: LABKIT_FAKE_CUDA=1 puts tests/fake_cupy, a
# numpy-backed stand-in for CuPy that keeps CuPy's host/device rules, in front of `import cupy`,
# so every device-parametrised test also runs its "cuda" case. It checks labkit's cupy code path
# (no numpy array mixed into device code, no implicit copy to the host), not a GPU.
test-fake-cuda: setup
	LABKIT_FAKE_CUDA=1 $(BIN)/pytest -p no:cacheprovider tests --ignore=tests/ui

# The differential fuzzer (tests/fuzz) for MINUTES minutes: batches of random programs run on
# labkit and torch in lockstep, each batch with a fresh hypothesis seed, until the time is up;
# the first discrepancy stops it and prints the (shrunk) program.
MINUTES ?= 30
fuzz: setup
	end=$$(( $$(date +%s) + 60 * $(MINUTES) )); n=0; \
	while [ $$(date +%s) -lt $$end ]; do \
		n=$$((n + 1)); echo "fuzz batch $$n"; \
		LABKIT_FUZZ_EXAMPLES=2000 $(BIN)/python -m pytest -p no:cacheprovider tests/fuzz \
			--hypothesis-seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') || exit 1; \
	done

bench: setup
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
