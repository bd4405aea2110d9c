# Sourced by scripts/env_vllm.sh, scripts/run_tests.sh and scripts/demo.sh: the vLLM releases the package is tested
# with, and the environment each one lives in (.venvs/NAME).
VLLM_DEFAULT_VERSION=0.33.0
VLLM_NEWEST_VERSION=0.34.0

# vllm_env_name VERSION -> vllm for the default release, vllm-MAJOR.MINOR for any other
vllm_env_name() {
  if [[ "$1" == "$VLLM_DEFAULT_VERSION" ]]; then
    echo vllm
  else
    local major_minor
    major_minor="$(echo "$1" | cut -d. -f1,2)"
    echo "vllm-$major_minor"
  fi
}
