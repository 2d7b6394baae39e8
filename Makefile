# The two commands of the README, and the helpers behind them.
PY := .venv/bin/python

.PHONY: setup venv site test check bench serve lab clean

setup:                       ## install or reuse .venv, Chromium, CJK fonts, offline scripts
	@bash book/tools/setup.sh

venv:                        ## only the Python packages in .venv: no root, no apt, no npm
	@bash book/tools/setup.sh --python-only

site: setup                  ## build both editions into _build/site
	@$(PY) book/tools/build.py

test: setup                  ## the whole test suite: library, notebooks, prose, parity, strict build, browser
	@$(PY) -m pytest -n auto --dist loadfile   # whole files per worker, one strict build (tests/conftest.py)

check: | $(PY)               ## the fast path: library, doctests, guards; no notebooks, figures, widgets or build
	@$(PY) -m pytest -n auto --dist loadfile -q -m "not build and not pages" infra_lib tests   # markers: tests/conftest.py

$(PY):
	@bash book/tools/setup.sh --python-only

bench: setup                 ## print timings: tests (make check, make test), clean build, rebuild, each notebook
	@$(PY) book/tools/bench.py

serve: site                  ## serve the site on http://127.0.0.1:8000
	@$(PY) -m http.server 8000 --bind 127.0.0.1 --directory _build/site

lab: venv                    ## open the notebooks in JupyterLab (widgets live); needs only Python
	@.venv/bin/jupyter lab notebooks

clean:
	rm -rf _build
