#!/usr/bin/env bash
# The whole served-path matrix (tests/served) on both engines; CI runs its smoke (tests/*/test_served_matrix.py).
#   pass 1: every cell (API x mode x parsers x tool choice x strict x parallel calls x finish x tokenization x tokens
#           per step), TEXTS texts each (default 6), drawn with SEED from the texts the cell can serve
#   pass 2: every text through every API, mode, parser configuration and tokenization
# Usage: bash scripts/served_matrix.sh [vllm] [sglang]   (default: both; needs their environments, scripts/env_*.sh)
# Environment: TEXTS, SEED. Exit status 1 if any cell differs from the core's one-pass reading.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh
engines=("$@")
[[ ${#engines[@]} -eq 0 ]] && engines=(vllm sglang)
status=0
for engine in "${engines[@]}"; do
  python="$VENVS_DIR/$engine/bin/python"
  [[ -x "$python" ]] || { echo "[matrix] no $engine environment: bash scripts/env_$engine.sh" >&2; exit 2; }
  echo "=== [matrix] $engine: every cell, ${TEXTS:-6} texts each ==="
  PYTHONPATH="$REPO_ROOT" "$python" -m tests.served "$engine" --texts "${TEXTS:-6}" --seed "${SEED:-0}" || status=1
  echo "=== [matrix] $engine: every text ==="
  PYTHONPATH="$REPO_ROOT" "$python" -m tests.served "$engine" --every-text || status=1
done
exit $status
