#!/usr/bin/env bash
# The whole test suite on a fresh machine: builds every environment it needs (scripts/env_*.sh), then runs
#   core     ruff, mypy --strict on the core, and the engine-free tests            (.venvs/core)
#   vllm     the vLLM 0.33 integration tests and the end-to-end HTTP tests          (.venvs/vllm)
#   sglang   the SGLang 0.5.23 integration tests, against the real engine          (.venvs/sglang)
#   clients  the client matrix: HTTP clients and agent frameworks against each engine's replay server
#            (.venvs/clients; the servers run in .venvs/vllm and .venvs/sglang, built here if missing)
#   install  README.md's install commands from a fresh clone into a fresh venv beside each engine (tests/install)
# Usage: bash scripts/run_tests.sh [core] [vllm] [sglang] [clients] [install]   (default: all five)
# Exit status is non-zero if any environment cannot be built or any check or test fails.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh

suites=("$@")
[[ ${#suites[@]} -eq 0 ]] && suites=(core vllm sglang clients install)
reports="$(mktemp -d)"
failed=()

# pytest SUITE PYTHON ARGS...: run pytest; "no tests collected" (exit 5) counts as a failure of that suite,
# because every suite here is expected to run tests -- but it never stops the other suites from running.
run_pytest() {
  local suite="$1" python="$2"; shift 2
  "$python" -m pytest -p no:cacheprovider --junitxml="$reports/$suite.xml" "$@"
  local rc=$?
  if [[ $rc -eq 5 ]]; then
    echo "[tests] $suite: pytest collected no tests (exit 5): treated as a failure of the suite" >&2
  fi
  return $rc
}

run_core() {
  bash scripts/env_core.sh || return 1
  venv_refresh_package core || return 1
  local py="$VENVS_DIR/core/bin/python" ok=0
  echo "[tests] ruff"; "$VENVS_DIR/core/bin/ruff" check longcat_plugins tests benchmarks examples || ok=1
  echo "[tests] mypy --strict longcat_plugins/core"; "$VENVS_DIR/core/bin/mypy" --strict longcat_plugins/core || ok=1
  run_pytest core "$py" tests --ignore=tests/vllm --ignore=tests/sglang --ignore=tests/e2e --ignore=tests/clients \
    --ignore=tests/install -q \
    || ok=1
  return $ok
}

run_engine() {
  local engine="$1"
  bash "scripts/env_$engine.sh" || { echo "[tests] could not build the $engine environment" >&2; return 1; }
  venv_refresh_package "$engine" || return 1
  local paths=("tests/$engine")
  [[ $engine == vllm ]] && paths+=(tests/e2e)  # the replay server is vLLM's own front end
  LONGCAT_REQUIRE_ENGINE="$engine" run_pytest "$engine" "$VENVS_DIR/$engine/bin/python" "${paths[@]}" -q
}

run_clients() {
  local engine
  for engine in vllm sglang; do
    bash "scripts/env_$engine.sh" || { echo "[tests] could not build the $engine environment" >&2; return 1; }
    venv_refresh_package "$engine" || return 1
  done
  bash scripts/env_clients.sh || { echo "[tests] could not build the clients environment" >&2; return 1; }
  venv_refresh_package clients || return 1
  LONGCAT_REQUIRE_CLIENTS=1 run_pytest clients "$VENVS_DIR/clients/bin/python" tests/clients -q
}

# The install commands of README.md beside each engine environment (used as it is: nothing is installed into it).
run_install() {
  local engine
  for engine in vllm sglang; do
    bash "scripts/env_$engine.sh" || { echo "[tests] could not build the $engine environment" >&2; return 1; }
  done
  bash scripts/env_core.sh || return 1
  LONGCAT_VENVS="$VENVS_DIR" LONGCAT_REQUIRE_INSTALL=1 run_pytest install "$VENVS_DIR/core/bin/python" tests/install -q
}

for suite in "${suites[@]}"; do
  echo "=== [tests] $suite ==="
  case "$suite" in
    core) run_core || failed+=(core) ;;
    vllm|sglang) run_engine "$suite" || failed+=("$suite") ;;
    clients) run_clients || failed+=(clients) ;;
    install) run_install || failed+=(install) ;;
    *) echo "unknown suite: $suite (known: core vllm sglang clients install)" >&2; exit 2 ;;
  esac
done

python3 - "$reports" "${suites[@]}" <<'PY'
import sys, pathlib, xml.etree.ElementTree as ET
reports, suites = pathlib.Path(sys.argv[1]), sys.argv[2:]
total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
for suite in suites:
    f = reports / f"{suite}.xml"
    if not f.exists():
        print(f"[tests] {suite}: no report (the suite did not run)")
        continue
    root = ET.parse(f).getroot()
    for ts in ([root] if root.tag == "testsuite" else root.iter("testsuite")):
        counts = {k: int(ts.get(k, 0)) for k in total}
        for k in total:
            total[k] += counts[k]
        print(f"[tests] {suite}: {counts['tests'] - counts['failures'] - counts['errors'] - counts['skipped']} passed,"
              f" {counts['failures'] + counts['errors']} failed, {counts['skipped']} skipped")
passed = total["tests"] - total["failures"] - total["errors"] - total["skipped"]
print(f"{passed} passed, {total['failures'] + total['errors']} failed, {total['skipped']} skipped")
PY
rm -rf "$reports"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "[tests] FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "[tests] all suites passed"
