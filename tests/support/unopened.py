"""An output that closes reasoning it never opened (``X</think>Y``), and how each kind of model's output is read,
for both engines' template tests (``tests/*/test_reasoning_gate_templates.py``)."""

from __future__ import annotations

PLAN = "The user wants the weather in Paris, so I call the tool."
ANSWER = "\n\nIt is sunny in Paris."
#: the output, with ``</think>`` standing for the model's closing tag
UNOPENED = f"{PLAN}\n</think>{ANSWER}"
#: (model, enable_thinking) -> (reasoning, content). ``qwen3``: a model that may open reasoning itself (its template has
#: a thinking switch): read as reasoning from the first token, as the engines' own qwen3 parsers read it, unless the
#: request switched thinking off (the prompt then closes it: the stray tag is markup in content). ``longcat_chat``,
#: ``plain_chatml``: models that do not reason: their text stays content (a tag they write is markup, as everywhere
#: in content).
READINGS: dict[tuple[str, bool | None], tuple[str, str]] = {
    ("qwen3", None): (f"{PLAN}\n", ANSWER),
    ("qwen3", True): (f"{PLAN}\n", ANSWER),
    ("qwen3", False): ("", f"{PLAN}\n{ANSWER}"),
    ("longcat_chat", None): ("", f"{PLAN}\n{ANSWER}"),
    ("plain_chatml", None): ("", f"{PLAN}\n{ANSWER}"),
}


def unopened(think_end: str, model: str, thinking: bool | None) -> tuple[str, str, str]:
    """(output, reasoning, content) for a model whose closing think tag is ``think_end``."""
    reasoning, content = READINGS[(model, thinking)]
    return UNOPENED.replace("</think>", think_end), reasoning, content
