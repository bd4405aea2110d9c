"""Tool-call and reasoning parsing for LongCat (and Qwen3-style) models on vLLM and SGLang.

Importing this package is cheap: it never imports an engine. The engine adapters live in
``longcat_plugins.vllm`` and ``longcat_plugins.sglang`` and are loaded by the engines' plugin entry points.
"""

__version__ = "0.1.0"
