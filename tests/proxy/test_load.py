"""The proxy's load script (``scripts/proxy_load.py``) as a smoke: a few streams through the proxy, each answer
compared with the client library's repair of the same stream read directly (and with the repair of the whole
answer), every request ended (an access-log line for each), no traceback, and the proxy's RSS flat after the
warm-up. The amount of work is a count of answers, not a duration, and nothing here asserts a time: a proxy that
keeps every stream's repair (``leaky_proxy.py``) grows past the same limit."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from proxy_support import REPO

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")

#: 160 answers of 8 streams; a leak of ~60 KiB an answer (the leaky proxy) grows by ~8 MiB, the proxy by < 1 MiB
SMOKE = ["--streams", "8", "--answers", "160", "--interval-ms", "1", "--sample-s", "0.25", "--rss-slack-mib", "4"]
SMOKE += ["--duration", "600"]  # (a safety net; the answers end the run)


def load_script() -> Any:
    spec = importlib.util.spec_from_file_location("proxy_load", REPO / "scripts" / "proxy_load.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["proxy_load"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> Any:
    return load_script()


@pytest.mark.parametrize("extra", [[], ["--reasoning"]], ids=["calls", "reasoning"])
def test_answers_through_the_proxy_equal_the_direct_repair(script: Any, extra: list[str]) -> None:
    verdict = script.run(script.parser().parse_args(SMOKE + extra))
    assert verdict.failures == []
    assert verdict.answers_equal and verdict.all_ended and verdict.clean_log and verdict.rss_flat
    assert verdict.figures["requests"] == 160 and verdict.figures["events"] > 160
    assert verdict.ok


def test_a_leak_is_caught(script: Any) -> None:
    leaky = ["--proxy-command", str(Path(__file__).resolve().parent / "leaky_proxy.py")]
    verdict = script.run(script.parser().parse_args(SMOKE + leaky))
    assert verdict.answers_equal and verdict.all_ended and verdict.clean_log
    assert not verdict.rss_flat and not verdict.ok
