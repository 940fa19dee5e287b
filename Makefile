# Everything a fresh machine needs, in two targets: `make demo` and `make test` (`make check` while working).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo lint test check bench bench-vision eval train clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; it downloads no browser of its own),
# with a CJK font so the Korean pages draw Hangul rather than boxes (tests/test_web_browser.py checks).
/usr/bin/chromium:
	-(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null

/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc:
	-(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk) >/dev/null

# The fonts the font decks are set in (models/fonts.py: how the corner reader reads an index it never saw).
/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf:
	-(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-dejavu-core fonts-liberation) >/dev/null

# The voice's speech synthesiser, offline (tests/test_voice.py renders each language to a WAV).
/usr/bin/espeak-ng:
	-(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng) >/dev/null

demo: $(STAMP)
	$(BIN)/companion demo

# ruff and mypy, as pyproject.toml configures them (mypy's files: the packages, scripts/ and tests/).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint /usr/bin/chromium /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc /usr/bin/espeak-ng \
		/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf
	$(BIN)/python -m pytest -q -p no:cacheprovider

# The quick loop: lint, then every test but those marked slow or browser (pyproject.toml's markers).
check: lint
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow and not browser"

bench: $(STAMP)
	$(BIN)/python -m companion.app.bench

bench-vision: $(STAMP)
	$(BIN)/python scripts/bench_vision.py

# `make eval FOLDER=path/to/photos`: the recogniser on a labelled folder (docs/labels.md).
FOLDER ?= companion/examples/photos
eval: $(STAMP)
	$(BIN)/companion eval $(FOLDER)

# Trains the card models: faces, then corners (models/chain.py: chained runs, each from the last one's weights), then
# the detector (CPU torch, the Debian card decks and gimp-data's photographic patterns); see models/README.md.
# The faces go first: both readers then cut the photos at the card inside them as the shipped corner
# reader finds it, read once and cached (models/README.md says how long each step takes).
train: $(STAMP) /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf
	$(BIN)/pip install -q -e '.[train,test]'
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kdegames-card-data-kf5 gnome-cards-data gimp-data >/dev/null
	$(BIN)/python -m models.train --reader faces --epochs 10 --per-face 16 --real-copies 3 --seed 2
	$(BIN)/python -m models.chain
	$(BIN)/python -m models.detector
	$(BIN)/python -m models.detector --init models/detector.onnx --room-light --epochs 6 --lr 5e-4

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache
