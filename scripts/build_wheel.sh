#!/usr/bin/env bash
# Build the longcat-plugins wheel from this checkout: the file to install next to an engine where there is no
# checkout (a Docker build stage, a cluster without git). Prints the wheel's path as its last line.
# Usage: bash scripts/build_wheel.sh [OUT_DIR]        (default: dist/ in the checkout)
# Needs the package index once, for the build backend (setuptools), as any `pip install .` does.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "${1:-$repo/dist}"
out="$(cd "${1:-$repo/dist}" && pwd)"
python="${PYTHON:-python3}"
cd "$repo"
version="$("$python" -c 'import re, pathlib; print(re.search(r"^__version__ = \"([^\"]+)\"", pathlib.Path("longcat_plugins/__init__.py").read_text(), re.M).group(1))')"
"$python" -m pip wheel --quiet --no-deps --wheel-dir "$out" .
wheel="$out/longcat_plugins-$version-py3-none-any.whl"
[[ -f "$wheel" ]] || { echo "build_wheel: $wheel was not built" >&2; exit 1; }
echo "$wheel"
