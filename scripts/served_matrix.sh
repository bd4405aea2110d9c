#!/usr/bin/env bash
# The whole served-path matrix (tests/served) on both engines; CI runs its smoke (tests/*/test_served_matrix.py).
#   pass 1: every cell (API x mode x parsers x tool choice x strict x parallel calls x finish x tokenization x tokens
#           per step: 1, 3, 16, 64 and the whole turn), TEXTS texts each (default 6), drawn with SEED from the texts
#           the cell can serve
#   pass 2: every text through every API, mode, parser configuration and tokenization
#   pass 3 (scale): OUTPUTS served outputs (default 100000), each a random cell with tokens per step drawn from 1..64
#           or the whole turn, and a text it can serve (half of them the fuzzer's outputs: well-formed in every
#           dialect, mutated, markup soup); prints outputs, cells, differences, failures, engine faults and time
# Usage: bash scripts/served_matrix.sh [vllm] [sglang]   (default: both; needs their environments, scripts/env_*.sh)
# Environment: TEXTS, SEED; OUTPUTS (0: no scaled pass), JOBS (processes of the scaled pass, default 1), PASSES
# (default "1 2 3"; e.g. PASSES=3 OUTPUTS=10000 for a sized scaled run alone). Exit status 1 if any cell differs from
# the core's one-pass reading.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh
engines=("$@")
[[ ${#engines[@]} -eq 0 ]] && engines=(vllm sglang)
passes=" ${PASSES:-1 2 3} "
outputs=${OUTPUTS:-100000}
status=0
for engine in "${engines[@]}"; do
  python="$VENVS_DIR/$engine/bin/python"
  [[ -x "$python" ]] || { echo "[matrix] no $engine environment: bash scripts/env_$engine.sh" >&2; exit 2; }
  if [[ $passes == *" 1 "* ]]; then
    echo "=== [matrix] $engine: every cell, ${TEXTS:-6} texts each ==="
    PYTHONPATH="$REPO_ROOT" "$python" -m tests.served "$engine" --texts "${TEXTS:-6}" --seed "${SEED:-0}" || status=1
  fi
  if [[ $passes == *" 2 "* ]]; then
    echo "=== [matrix] $engine: every text ==="
    PYTHONPATH="$REPO_ROOT" "$python" -m tests.served "$engine" --every-text || status=1
  fi
  if [[ $passes == *" 3 "* && $outputs -gt 0 ]]; then
    echo "=== [matrix] $engine: $outputs outputs, 1 to 64 tokens per step or the whole turn ==="
    PYTHONPATH="$REPO_ROOT" "$python" -m tests.served "$engine" --outputs "$outputs" --seed "${SEED:-0}" \
      --jobs "${JOBS:-1}" || status=1
  fi
done
exit $status
