#!/usr/bin/env bash
# Install everything the build and the tests need, or reuse what is already there:
#   system packages  Chromium (browser tests, PDF), Noto CJK fonts (Chinese figure labels),
#                    EPUBCheck and poppler-utils (checking the EPUB and PDF downloads)
#   .venv            Python packages pinned in requirements.txt, plus infra_lib (editable)
#   book/node_modules    MathJax (turns the formulas into MathML at build time, in Node)
#   book/_static/vendor  require.js and the widget manager, served by the site itself
#   book/lite-vendor     Pyodide's core (npm) and the wheels the live pages load in the browser (pip)
# Safe to run again: each step is skipped when its stamp says it is up to date.
set -euo pipefail
cd "$(dirname "$0")/../.."

# --python-only: just .venv (what `make lab` needs): no root, no apt, no npm.
PYTHON_ONLY=0; [ "${1:-}" = "--python-only" ] && PYTHON_ONLY=1

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || need_apt+=(fonts-noto-cjk)
[ -x /usr/bin/epubcheck ] || need_apt+=(epubcheck)        # validates the EPUB of each edition
[ -x /usr/bin/pdftotext ] || need_apt+=(poppler-utils)    # reads the PDF of each edition back in the tests
if [ ${#need_apt[@]} -gt 0 ] && [ "$PYTHON_ONLY" = 0 ]; then
  echo "[setup] installing Debian packages: ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need_apt[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
stamp=.venv/.requirements.sha
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -c1-16)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[setup] creating .venv from requirements.txt"
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
  # make infra_lib importable from this checkout (what an editable install does, with no build step)
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  pwd > "$site/infra_course.pth"
  echo "$want" > "$stamp"
fi

if [ "$PYTHON_ONLY" = 1 ]; then echo "[setup] .venv ready (Python packages only)"; exit 0; fi

vendor=book/_static/vendor
vstamp=$vendor/.lock.sha
vwant="$(sha256sum book/package-lock.json | cut -c1-16) mathml-at-build"   # bump the tail when the copy list changes
if [ "$(cat "$vstamp" 2>/dev/null)" != "$vwant" ]; then
  echo "[setup] fetching offline scripts from the npm registry (book/package-lock.json)"
  (cd book && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  rm -rf "$vendor" && mkdir -p "$vendor"
  cp book/node_modules/requirejs/require.js "$vendor/require.min.js"
  cp book/node_modules/@jupyter-widgets/html-manager/dist/embed-amd.js "$vendor/embed-amd.js"
  echo "$vwant" > "$vstamp"
fi
lvendor=book/lite-vendor
lstamp=$lvendor/.stamp
lwant="$(cat book/package-lock.json requirements.txt | sha256sum | cut -c1-16) lite-v1"   # bump the tail when lite.py's vendor step changes
if [ "$(cat "$lstamp" 2>/dev/null)" != "$lwant" ]; then
  echo "[setup] fetching Pyodide's core (npm) and the live pages' wheels (pip) into $lvendor"
  [ -f book/node_modules/pyodide/package.json ] || (cd book && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  .venv/bin/python book/tools/lite.py vendor
  echo "$lwant" > "$lstamp"
fi
echo "[setup] ready"
