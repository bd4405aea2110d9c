"""The no-op parser pair of :mod:`benchmarks.vllm_floors`, loaded by a server through vLLM's own
``--tool-parser-plugin`` / ``--reasoning-parser-plugin`` (which import a file by its path): the serving benchmark's
``floor``, what any parser pair costs a real server."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.vllm_floors import register

register()
