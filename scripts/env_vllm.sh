#!/usr/bin/env bash
# A vLLM test environment: one vLLM release (CUDA torch wheels, run on CPU), the test tools and the package itself,
# editable, so that its `vllm.general_plugins` entry point is registered.
# Usage: bash scripts/env_vllm.sh [VERSION]
#   VERSION  a vLLM release the package supports: 0.33.0 (default, in .venvs/vllm) or 0.34.0 (in .venvs/vllm-0.34);
#            each release gets its own environment (vllm_env_name in scripts/vllm_versions.sh).
#
# The plain `pip install vllm==VERSION` is tried first. vLLM 0.34.0 pins flashinfer-python==0.7.3, which a package
# index may lack (flashinfer-python is a GPU kernel library; nothing here loads it on CPU). When the plain install
# fails, and only then, the fallback installs vLLM's own requirements (read from its wheel's metadata) with the
# flashinfer pin moved to a release the index has (FLASHINFER_FALLBACK), then the vLLM wheel with --no-deps.
source "$(dirname "${BASH_SOURCE[0]}")/venv_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/vllm_versions.sh"
VERSION="${1:-$VLLM_DEFAULT_VERSION}"
NAME="$(vllm_env_name "$VERSION")"
FLASHINFER_FALLBACK="${LONGCAT_FLASHINFER_FALLBACK:-0.7.4}"
VERSION_FILE="$VENVS_DIR/$NAME/.vllm-version"
if venv_ready "$NAME" "${BASH_SOURCE[0]}" && [[ "$(cat "$VERSION_FILE" 2>/dev/null)" == "$VERSION" ]]; then
  echo "[env] $NAME (vllm $VERSION) up to date"
  exit 0
fi
echo "[env] creating $NAME (vllm $VERSION)"
venv_create "$NAME"
PY="$VENVS_DIR/$NAME/bin/python"
PIP=("$PY" -m pip install --quiet)
TOOLS=("pytest>=8" "pytest-xdist>=3.6" "hypothesis>=6.100")

install_with_pinned_flashinfer() {
  local tmp
  tmp="$(mktemp -d)"
  "$PY" -m pip download --quiet --no-deps -d "$tmp" "vllm==$VERSION" || { rm -rf "$tmp"; return 1; }
  # Requires-Dist without extras; markers stay (pip evaluates them in a requirements file)
  "$PY" - "$tmp" "$FLASHINFER_FALLBACK" > "$tmp/requirements.txt" <<'REQS' || { rm -rf "$tmp"; return 1; }
import email.parser, pathlib, re, sys, zipfile

wheel = next(pathlib.Path(sys.argv[1]).glob("vllm-*.whl"))
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = email.parser.Parser().parsestr(z.read(name).decode())
for requirement in metadata.get_all("Requires-Dist") or []:
    if re.search(r"\bextra\s*==", requirement):
        continue
    print(re.sub(r"^flashinfer-python\s*==\s*[^;\s]+", f"flashinfer-python=={sys.argv[2]}", requirement))
REQS
  echo "[env] installing vLLM $VERSION's requirements with flashinfer-python==$FLASHINFER_FALLBACK, then vLLM --no-deps"
  "${PIP[@]}" -r "$tmp/requirements.txt" "${TOOLS[@]}" && "${PIP[@]}" --no-deps "$tmp"/vllm-*.whl
  local rc=$?
  rm -rf "$tmp"
  return $rc
}

if ! "${PIP[@]}" "vllm==$VERSION" "${TOOLS[@]}"; then
  echo "[env] pip install vllm==$VERSION failed; retrying with its requirements and flashinfer-python==$FLASHINFER_FALLBACK" >&2
  install_with_pinned_flashinfer
fi
"${PIP[@]}" --no-deps -e "$REPO_ROOT"
"$PY" - "$VERSION" <<'CHECK'
import importlib.metadata as md
import sys

import longcat_plugins  # noqa: F401
import vllm

assert md.version("vllm") == sys.argv[1], f"expected vllm {sys.argv[1]}, got {md.version('vllm')}"
names = [ep.name for ep in md.entry_points(group="vllm.general_plugins")]
assert "longcat" in names, f"the longcat entry point is missing from vllm.general_plugins: {names}"
print("[env] vllm", vllm.__version__)
CHECK
echo "$VERSION" > "$VERSION_FILE"
venv_mark_ready "$NAME" "${BASH_SOURCE[0]}"
