"""Message content given as a list of parts, made into the text a template sees, as the engines do it.

OpenAI clients may send ``"content": [{"type": "text", "text": "hi"}]``. Before rendering, vLLM
(``vllm.entrypoints.chat_utils``) and SGLang (``jinja_template_utils``) look at the chat template: one that
iterates over a message's content gets the parts as they are ("openai" content format); any other ("string"
format, every template shipped here) gets the text parts joined into one string -- by vLLM with a newline, by
SGLang with a space. Other parts (images, audio) have no text and are left out of that string.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

import jinja2.nodes

from longcat_plugins.templates._environment import make_environment

#: part types whose ``text`` the engines keep when they flatten content
TEXT_PART_TYPES: Final = ("text", "input_text")
#: what each engine puts between the text parts of one message
SEPARATORS: Mapping[str, str] = {"vllm": "\n", "sglang": " "}
ENGINES: Final = tuple(SEPARATORS)


@lru_cache(maxsize=32)
def takes_content_parts(source: str) -> bool:
    """Whether a template iterates over a message's content (the engines then pass the parts unflattened)."""
    try:
        tree = make_environment().parse(source)
    except jinja2.TemplateSyntaxError:
        return False
    return any(_is_content(loop.iter) for loop in tree.find_all(jinja2.nodes.For))


def _is_content(node: jinja2.nodes.Node) -> bool:
    while isinstance(node, jinja2.nodes.Filter | jinja2.nodes.Test) and node.node is not None:
        node = node.node
    if isinstance(node, jinja2.nodes.Getattr):
        return node.attr == "content"
    if isinstance(node, jinja2.nodes.Getitem):
        return isinstance(node.arg, jinja2.nodes.Const) and node.arg.value == "content"
    return False


def flatten_content(content: Any, engine: str = "vllm") -> Any:
    """``content`` as a string-format template receives it from ``engine``; anything but a list is unchanged."""
    if not isinstance(content, list):
        return content
    texts = [
        part["text"]
        for part in content
        if isinstance(part, Mapping) and part.get("type") in TEXT_PART_TYPES and isinstance(part.get("text"), str)
    ]
    return SEPARATORS[engine].join(texts)
