#!/usr/bin/env bash
# The README's main job, GPU-free: an agent loop with the official openai client (streaming) against vLLM's own
# OpenAI server with the longcat parsers, answering from a recorded LongCat-Flash-Chat conversation.
#   1. the vLLM environment (.venvs/vllm, built by scripts/env_vllm.sh on first use: about 5 minutes)
#   2. `longcat-plugins serve --replay longcat_plugins/examples/weather_agent.jsonl` in the background, on a free
#      loopback port
#   3. examples/agent_loop.py against it: question, two parallel tool calls run locally, results, final answer
#   4. the server is stopped (also on Ctrl-C or failure)
# Usage: bash scripts/demo.sh [agent_loop.py options, e.g. --no-stream]
# LONGCAT_DEMO_PYTHON=/path/to/python uses that interpreter (vLLM installed) instead of building .venvs/vllm;
# LONGCAT_DEMO_VLLM=0.34.0 builds and uses that vLLM release's environment (scripts/env_vllm.sh 0.34.0).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/vllm_versions.sh

if [[ -n "${LONGCAT_DEMO_PYTHON:-}" ]]; then
  PY="$LONGCAT_DEMO_PYTHON"
else
  VERSION="${LONGCAT_DEMO_VLLM:-$VLLM_DEFAULT_VERSION}"
  bash scripts/env_vllm.sh "$VERSION" >&2
  PY="${LONGCAT_VENVS:-.venvs}/$(vllm_env_name "$VERSION")/bin/python"
fi

RECORDING="longcat_plugins/examples/weather_agent.jsonl"
LOG="$(mktemp -t longcat-demo-server.XXXXXX)"
SERVER_PID=""

stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -f "$LOG"
}
trap stop_server EXIT
trap 'exit 130' INT TERM

echo "[demo] starting the replay server (vLLM's OpenAI front end, longcat parsers, no GPU) ..." >&2
"$PY" -m longcat_plugins serve --replay "$RECORDING" --host 127.0.0.1 --port 0 --token-delay 0.01 >"$LOG" 2>&1 &
SERVER_PID=$!

URL=""
for _ in $(seq 1 1800); do  # up to 180 s: importing vLLM takes 10 to 30 s on a small machine
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "[demo] the server exited during start-up; its log:" >&2; tail -n 40 "$LOG" >&2; exit 1
  fi
  URL="$(sed -n 's/^longcat-plugins serve: .* at \(http:[^ ]*\)$/\1/p' "$LOG" | head -n 1)"
  [[ -n "$URL" ]] && break
  sleep 0.1
done
if [[ -z "$URL" ]]; then
  echo "[demo] the server did not start in time; its log:" >&2; tail -n 40 "$LOG" >&2; exit 1
fi
echo "[demo] server ready at $URL; running examples/agent_loop.py (official openai client, streaming)" >&2
echo
"$PY" examples/agent_loop.py --base-url "$URL" "$@"
