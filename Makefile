# Two commands do all the set-up on a fresh machine with Python 3.11:
#   make app    install everything, then start the dashboard on the built-in demo data
#   make test   install everything (and Debian's chromium and a Label Studio venv for the
#               end-to-end tests), then run all tests
PYTHON ?= python3
PORT ?= 8501

.PHONY: install browser labelstudio glide app test bench

install:
	$(PYTHON) -m pip install --quiet torch==2.13.0
	$(PYTHON) -m pip install --quiet -e ".[test]"

browser:
	@command -v chromium >/dev/null 2>&1 || (apt-get update && apt-get install -y chromium)

# Label Studio for tests/e2e/test_labelstudio.py, in its own venv (its pins would downgrade pandas/numpy)
labelstudio: .venv-labelstudio/bin/label-studio

.venv-labelstudio/bin/label-studio:
	$(PYTHON) -m venv .venv-labelstudio
	.venv-labelstudio/bin/pip install --quiet 'label-studio==1.23.*'

# GLIDE 0.11 (glide-py), a test-only oracle for the confidence sequences: its wheel is pure Python
# and declares Python >= 3.12, but its modules import on 3.11, so it is unpacked, not installed
GLIDE_DIR = .cache/glide-py-0.11.0
glide: $(GLIDE_DIR)/glide/__init__.py

$(GLIDE_DIR)/glide/__init__.py:
	mkdir -p .cache/wheels
	$(PYTHON) -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
		'glide-py==0.11.0' -d .cache/wheels
	$(PYTHON) -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
		.cache/wheels/glide_py-0.11.0-py3-none-any.whl $(GLIDE_DIR)

app: install
	$(PYTHON) app.py --server.port $(PORT)

test: install browser labelstudio glide
	$(PYTHON) -m pytest

bench: install browser
	for b in sae agreement hee scorekeeping tooltalk archive mce mce_inference mce_quantized certify app upload cli design design_unseen anytime annotators effort_campaign report browser; do $(PYTHON) bench/$$b.py || exit 1; done
