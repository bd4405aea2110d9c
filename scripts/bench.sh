#!/usr/bin/env bash
# The benchmarks (issue 6, DESIGN.md section 7): ours against every built-in parser, side by side.
#   core     our core alone and the floor                                   (.venvs/core)
#   vllm     ours vs built-in longcat, hermes, qwen3_coder via Parser.parse_delta      (.venvs/vllm)
#   sglang   ours vs built-in qwen25, hermes, qwen3_coder via parse_stream_chunk       (.venvs/sglang)
# then merges build/bench/*.json into benchmarks/RESULTS.md and benchmarks/scaling.png (drawn in .venvs/core,
# where matplotlib is installed if missing).
# Usage: bash scripts/bench.sh [core] [vllm] [sglang]    (default: all three; the report merges whatever exists)
# BENCH_ARGS is passed to every part (e.g. BENCH_ARGS="--sizes 4096,16384 --counts 125,500 --no-memory").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh

parts=("$@")
[[ ${#parts[@]} -eq 0 ]] && parts=(core vllm sglang)
OUT="$REPO_ROOT/build/bench"
mkdir -p "$OUT"
read -r -a extra <<< "${BENCH_ARGS:-}"
started=$SECONDS

for part in "${parts[@]}"; do
  case "$part" in
    core|vllm|sglang) ;;
    *) echo "unknown part: $part (known: core vllm sglang)" >&2; exit 2 ;;
  esac
  bash "scripts/env_$part.sh"
  venv_refresh_package "$part"
  echo "=== [bench] $part ==="
  rm -f "$OUT/$part.json"
  "$VENVS_DIR/$part/bin/python" -m "benchmarks.${part}_part" --out "$OUT/$part.json" "${extra[@]}"
done

bash scripts/env_core.sh
PY="$VENVS_DIR/core/bin/python"
if ! "$PY" -c "import matplotlib" 2>/dev/null; then
  echo "[bench] installing matplotlib into .venvs/core for the plot"
  "$PY" -m pip install --quiet --disable-pip-version-check "matplotlib>=3.8"
fi
"$PY" -m benchmarks.report "$OUT/vllm.json" "$OUT/sglang.json" "$OUT/core.json"
echo "[bench] done in $((SECONDS - started)) s: benchmarks/RESULTS.md, benchmarks/scaling.png"
