#!/usr/bin/env bash
# The whole test suite on a fresh machine: builds every environment it needs (scripts/env_*.sh), then runs
#   core     ruff, mypy --strict on the core, and the engine-free tests            (.venvs/core)
#   vllm     the vLLM integration tests and the end-to-end HTTP tests on vLLM 0.33  (.venvs/vllm)
#   vllm034  the same suite on vLLM 0.34                                            (.venvs/vllm-0.34)
#   sglang   the SGLang 0.5.23 integration tests, against the real engine          (.venvs/sglang)
#   clients  the client matrix: HTTP clients and agent frameworks against each engine's replay server
#            (.venvs/clients; the servers run in .venvs/vllm and .venvs/sglang, built here if missing)
#   install  README.md's install commands from a fresh clone into a fresh venv beside each engine (tests/install)
# Usage: bash scripts/run_tests.sh [core] [vllm] [vllm034] [sglang] [clients] [install]   (default: all six)
# Exit status is non-zero if any environment cannot be built or any check or test fails.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh
source scripts/vllm_versions.sh

suites=("$@")
[[ ${#suites[@]} -eq 0 ]] && suites=(core vllm vllm034 sglang clients install)
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
  LONGCAT_REQUIRE_ENGINE="$engine" run_pytest "$engine" "$VENVS_DIR/$engine/bin/python" "tests/$engine" -q
}

# run_vllm SUITE VERSION: the vLLM suite (tests/vllm, and tests/e2e: the replay server is vLLM's own front end)
run_vllm() {
  local suite="$1" version="$2" env
  env="$(vllm_env_name "$version")"
  bash scripts/env_vllm.sh "$version" || { echo "[tests] could not build the vLLM $version environment" >&2; return 1; }
  venv_refresh_package "$env" || return 1
  LONGCAT_REQUIRE_ENGINE=vllm run_pytest "$suite" "$VENVS_DIR/$env/bin/python" tests/vllm tests/e2e -q
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
    vllm) run_vllm vllm "$VLLM_DEFAULT_VERSION" || failed+=(vllm) ;;
    vllm034) run_vllm vllm034 "$VLLM_NEWEST_VERSION" || failed+=(vllm034) ;;
    sglang) run_engine sglang || failed+=(sglang) ;;
    clients) run_clients || failed+=(clients) ;;
    install) run_install || failed+=(install) ;;
    *) echo "unknown suite: $suite (known: core vllm vllm034 sglang clients install)" >&2; exit 2 ;;
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
