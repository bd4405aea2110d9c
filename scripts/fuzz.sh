#!/usr/bin/env bash
# Fuzz the engine-free core: N generated model outputs (default 20000; well-formed in every dialect the parser reads,
# the test-only ones of tests/extra_dialects.py included as in the tests unless LONGCAT_EXTRA_DIALECTS is set;
# mutated; markup soup) through every invariant check; findings are grouped by check, minimized, printed and saved
# (--out DIR, default a new temporary directory), with the cases drawn in each dialect. Builds the core environment
# first if needed (scripts/env_core.sh).
# Usage: bash scripts/fuzz.sh [N] [options of `python -m tests.fuzz`, e.g. --seed 3 --jobs 2 --skip-known]
#        bash scripts/fuzz.sh --scaling          (cost exponents on adversarial patterns)
# Exit status: 1 when there are findings.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh
bash scripts/env_core.sh >&2

cases=20000
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  cases=$1
  shift
fi
args=("$@")
if [[ " $* " != *" --scaling "* && " $* " != *" --show "* ]]; then
  args=(--cases "$cases" "$@")
fi
PYTHONPATH="$REPO_ROOT${PYTHONPATH:+:$PYTHONPATH}" exec "$VENVS_DIR/core/bin/python" -m tests.fuzz "${args[@]}"
