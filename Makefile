# treexc: two commands from a fresh clone
#   make demo        create .venv, install treexc, compile every kernel, train and
#                    test on examples/
#   make test        the whole test suite (what CI runs)
#   make test-quick  the suite without the tests marked slow (a developer's loop)
PYTHON ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.installed
COMPILED := $(VENV)/.compiled
# the kernels' sources: a change compiles them again (treexc/jitstart.py)
SOURCES  := $(wildcard treexc/*.py treexc/*/*.py treexc/*/*/*.py)

.PHONY: install compile demo test test-quick bench bench-trees bench-lm bench-xmc bench-vectors clean

# PYTHONWARNINGS: setuptools' banner about editable installs (its advice is
# what treexc-clone.pth below takes care of).  treexc-clone.pth puts the
# clone on sys.path, so that Python started in the folder that holds the
# clone finds the package, not the clone's folder as an empty namespace.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
		echo "treexc needs Python >= 3.10; $(PYTHON) is $$($(PYTHON) -V 2>&1)." \
		     "Choose another with: make PYTHON=python3.12 ..."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install -q -e '.[test]'
	$(BIN)/python -c 'import sys, sysconfig; open(sysconfig.get_paths()["purelib"] \
		+ "/treexc-clone.pth", "w").write(sys.argv[1] + "\n")' "$(CURDIR)"
	touch $(STAMP)

install: $(STAMP)

# every command's kernels, once (treexc/cli/warmup.py); again after a source edit.
# compileall: the package's bytecode, which an editable install leaves to the
# first runs (and never writes under PYTHONDONTWRITEBYTECODE): compiling the
# sources costs every command 0.03-0.05 s of CPU at start-up
$(COMPILED): $(STAMP) $(SOURCES)
	$(BIN)/python -m compileall -q treexc
	$(BIN)/treexc compile
	touch $(COMPILED)

compile: $(COMPILED)

demo: compile
	@mkdir -p out
	$(BIN)/treexc supervised -input examples/cooking.train.txt.gz -output out/cooking -thread 2
	$(BIN)/treexc test out/cooking.bin examples/cooking.valid.txt.gz
	$(BIN)/treexc test out/cooking.bin examples/cooking.valid.txt.gz 5
	@echo "--- a few predictions (top 3 with probabilities):"
	@printf '%s\n' "how long should i rest a steak after grilling" \
		"can i freeze fresh basil" "what is the difference between baking soda and baking powder" \
		| $(BIN)/treexc predict-prob out/cooking.bin - 3

test: install
	$(BIN)/python -m pytest -q

# two worker processes (pytest-xdist), a test file's tests in one of them
# (its module fixtures built once): a 2-core machine's both cores
test-quick: install
	$(BIN)/python -m pytest -q -m 'not slow' -n 2 --dist loadfile

# benchmarks against fastText 0.9.2 (minutes; see docs/results/)
bench: install
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python benchmarks/bench_classify.py

bench-trees: install
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python benchmarks/bench_trees.py

# the language model against PyTorch: the main table of docs/results/lm.md
# (about an hour; rows whose log is already in bench-lm/ are not run again)
BENCH_LM := $(BIN)/python benchmarks/bench_lm.py --out bench-lm
bench-lm: install
	$(BIN)/python -m pip install -q -e '.[bench-lm]'
	$(BENCH_LM) --eval-per-epoch 4 --rows flat
	$(BENCH_LM) --eval-per-epoch 4 --rows random,cluster,learned --depth 2 --arity 256 --mass-slack 1
	$(BENCH_LM) --eval-per-epoch 4 --rows torch-adaptive --torch-threads 1 --suffix=-1t
	$(BENCH_LM) --eval-per-epoch 4 --rows torch-flat --torch-max-batches 1000 --torch-threads 1 --suffix=-1t
	$(BENCH_LM) --timing --timing-batches 200 --depth 2 --arity 256

# the extreme-classification peers (PECOS, Omikuji, napkinXC, fastText) against
# treexc: docs/results/xmc.md.  libpecos needs numpy < 2, so the peers get a
# virtualenv of their own; the treexc rows run .venv's treexc (numpy 2); rows
# already in bench-results/xmc are not rerun
XMC_VENV := .venv-xmc
$(XMC_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(XMC_VENV)
	$(XMC_VENV)/bin/python -m pip install -q --upgrade pip
	$(XMC_VENV)/bin/python -m pip install -q -e '.[bench-xmc]'
	touch $@

bench-xmc: install $(XMC_VENV)/.installed
	nice $(XMC_VENV)/bin/python benchmarks/bench_xmc.py --out bench-results/xmc --resume \
		--treexc $(BIN)/treexc

# word vectors against fastText 0.9.2: the tables of docs/results/vectors.md
# (each row's training time is on that page; --tokens 2000000 for minutes)
bench-vectors: install
	$(BIN)/python -m pip install -q -e '.[bench-vectors]'
	$(BIN)/python benchmarks/bench_vectors.py --tokens 20000000 --models skipgram,cbow \
		--rows treexc,fasttext --out bench-vectors
	$(BIN)/python benchmarks/bench_vectors.py --tokens 20000000 --models skipgram \
		--rows treexc-hs,treexc-hs-learned,fasttext-hs --out bench-vectors

clean:
	rm -rf out .pytest_cache $(COMPILED)
