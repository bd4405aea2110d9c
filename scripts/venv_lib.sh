# Shared by scripts/env_*.sh: create (or reuse) one virtual environment under .venvs/.
# A venv is reused only when it was completed by the same version of the script that built it (a stamp file
# holding the hash of that script and of this library); anything else is rebuilt from nothing. The package itself
# is installed editable, and re-registered by venv_refresh_package before every test run (entry points can change).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENVS_DIR="${LONGCAT_VENVS:-$REPO_ROOT/.venvs}"
PYTHON_BIN="${LONGCAT_PYTHON:-python3}"

# venv_ready NAME SCRIPT -> 0 when .venvs/NAME exists and was completed by this exact SCRIPT
venv_stamp() {
  cat "$1" "$REPO_ROOT/scripts/venv_lib.sh" | sha256sum | cut -d' ' -f1
}

venv_ready() {
  local dir="$VENVS_DIR/$1" stamp
  stamp="$(venv_stamp "$2")"
  [[ -x "$dir/bin/python" && -f "$dir/.stamp" && "$(cat "$dir/.stamp")" == "$stamp" ]]
}

venv_create() {
  local dir="$VENVS_DIR/$1"
  rm -rf "$dir"
  mkdir -p "$VENVS_DIR"
  "$PYTHON_BIN" -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --upgrade pip
}

venv_mark_ready() {
  venv_stamp "$2" > "$VENVS_DIR/$1/.stamp"
  echo "[env] $1 ready: $VENVS_DIR/$1"
}

# venv_refresh_package NAME: re-install this package (editable, no dependencies) so metadata and entry points match
venv_refresh_package() {
  "$VENVS_DIR/$1/bin/python" -m pip install --quiet --no-deps -e "$REPO_ROOT"
}
