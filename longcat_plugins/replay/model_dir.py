"""A weight-less model directory for the replay server: config.json and a real HF tokenizer, shaped after the
model family a chat template is for.

The tokenizer is a byte-level BPE trained at start-up (about a second) on the recording and the chat template,
with the family's markup tags as single tokens, and the template both as its ``chat_template`` and as the server's
``--chat-template``. Each template has a :class:`ModelFamily`: the end-of-sequence token, which tags are special
tokens (dropped by ``skip_special_tokens``), which are single but ordinary tokens, and the ``model_type`` and
architecture of ``config.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longcat_plugins.core.dialects import DIALECTS
from longcat_plugins.templates import template_path

from .tokenizer import train_bpe_tokenizer

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

TEMPLATE_NAME = "longcat-flash-chat"  # the default template
VOCAB_SIZE = 1200


@dataclass(frozen=True, slots=True)
class ModelFamily:
    """What the replay's model directory looks like for one chat template."""

    served_model_name: str
    model_type: str
    architecture: str
    eos: str
    bos: str | None = None
    special: tuple[str, ...] = ()  # special tokens besides bos/eos
    plain: tuple[str, ...] = ()  # single tokens that are not special (kept by skip_special_tokens)
    config: Mapping[str, Any] | None = None  # more config.json fields

    def tokens(self) -> list[str]:
        return [t for t in (self.bos, self.eos) if t is not None] + [*self.special, *self.plain]


#: LongCat's vocabulary: its markup tags (its dialect's block, as declared) are special tokens. Other tags
#: (``<think>``, ``<tool_call>``, ``<function=``, the key/value tags...) are split into several tokens, so both paths
#: of the parser are used.
LONGCAT = ModelFamily(
    served_model_name="LongCat-Flash-Chat",
    model_type="longcat_flash",
    architecture="LongcatFlashForCausalLM",
    bos="<longcat_s>",
    eos="</longcat_s>",
    special=(
        DIALECTS["json"].block.open,
        DIALECTS["json"].block.close,
        "<longcat_tool_response>",
        "</longcat_tool_response>",
        "<longcat_think>",
        "</longcat_think>",
    ),
    config={"num_layers": 1},
)

#: Qwen3's vocabulary (as in Qwen/Qwen3-8B's tokenizer_config.json): no BOS,
#: ``<|im_end|>`` ends a turn, the chat markers are special tokens, and ``<tool_call>``, ``<tool_response>``,
#: ``<think>`` (with their closing tags) are single tokens that are *not* special.
_QWEN_SPECIAL = ("<|endoftext|>", "<|im_start|>")
_QWEN_PLAIN = (
    DIALECTS["hermes"].block.open,
    DIALECTS["hermes"].block.close,
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)
_QWEN_CONFIG = {
    "num_hidden_layers": 1,
    "intermediate_size": 128,
    "num_key_value_heads": 1,
    "head_dim": 32,
    "tie_word_embeddings": True,
}
QWEN3 = ModelFamily(
    served_model_name="Qwen3",
    model_type="qwen3",
    architecture="Qwen3ForCausalLM",
    eos="<|im_end|>",
    special=_QWEN_SPECIAL,
    plain=_QWEN_PLAIN,
    config=_QWEN_CONFIG,
)
QWEN3_CODER = ModelFamily(
    served_model_name="Qwen3-Coder",
    model_type="qwen3_moe",
    architecture="Qwen3MoeForCausalLM",
    eos="<|im_end|>",
    special=_QWEN_SPECIAL,
    plain=_QWEN_PLAIN,
    config={**_QWEN_CONFIG, "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 32},
)

#: template name -> the model family whose vocabulary and config the replay imitates
FAMILIES: Mapping[str, ModelFamily] = {
    "longcat-flash-chat": LONGCAT,
    "qwen3-tools-first": QWEN3,
    "xml-function-thinking": QWEN3_CODER,
}


def family(template: str) -> ModelFamily:
    try:
        return FAMILIES[template]
    except KeyError:
        raise ValueError(f"no replay model for template {template!r}; known: {', '.join(sorted(FAMILIES))}") from None


def build_model_dir(
    root: Path,
    corpus: Iterable[str],
    template: str = TEMPLATE_NAME,
    alphabet: str | None = None,
    response_template: Mapping[str, Any] | None = None,
) -> Path:
    """Write a model directory (no weights) for ``template`` under ``root`` and return it (``alphabet``: see
    :func:`train_bpe_tokenizer`). ``response_template``: the ``response_template`` its tokenizer_config.json
    carries, which the engines' own template parsers read (vLLM's ``hf``, SGLang's ``response_template``)."""
    model = family(template)
    source = template_path(template).read_text(encoding="utf-8")
    tokenizer = train_bpe_tokenizer(
        [*corpus, source],
        [*(t for t in (model.bos, model.eos) if t is not None), *model.special],
        vocab_size=VOCAB_SIZE,
        bos_token=model.bos,
        eos_token=model.eos,
        additional_special_tokens=model.special,
        plain_tokens=model.plain,
        chat_template=source,
        alphabet=alphabet,
    )
    if response_template is not None:
        tokenizer.response_template = dict(response_template)
    root.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(root)
    config = {
        "model_type": model.model_type,
        "architectures": [model.architecture],
        "vocab_size": len(tokenizer),
        "hidden_size": 64,
        "num_attention_heads": 2,
        "max_position_embeddings": 65536,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
        **(model.config or {}),
    }
    (root / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return root


#: config.json fields of a model vLLM constructs and runs (random weights, ``--load-format dummy``) on its CPU build,
#: per template: a small Qwen3 (2 layers, hidden 128), and for LongCat-Flash one layer of its real architecture
#: (hidden 128, 4 experts + 2 zero experts; CPU attention needs ``kv_lora_rank=512`` and ``qk_rope_head_dim=64``).
_QWEN3_RUNNABLE: Mapping[str, Any] = {
    "model_type": "qwen3",
    "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 64,
    "intermediate_size": 256,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
}
_LONGCAT_RUNNABLE: Mapping[str, Any] = {
    "model_type": "longcat_flash",
    "architectures": ["LongcatFlashForCausalLM"],
    "hidden_size": 128,
    "num_layers": 1,
    "num_attention_heads": 2,
    "ffn_hidden_size": 256,
    "expert_ffn_hidden_size": 64,
    "n_routed_experts": 4,
    "zero_expert_num": 2,
    "zero_expert_type": "identity",
    "moe_topk": 2,
    "routed_scaling_factor": 1.0,
    "q_lora_rank": 64,
    "kv_lora_rank": 512,
    "mla_scale_q_lora": True,
    "mla_scale_kv_lora": True,
    "qk_nope_head_dim": 64,
    "qk_rope_head_dim": 64,
    "head_dim": 64,
    "v_head_dim": 64,
    "torch_dtype": "bfloat16",
}
RUNNABLE: Mapping[str, Mapping[str, Any]] = {
    "longcat-flash-chat": _LONGCAT_RUNNABLE,
    "qwen3-tools-first": _QWEN3_RUNNABLE,
    "xml-function-thinking": _QWEN3_RUNNABLE,
}


RUNNABLE_ALPHABET = "".join(map(chr, range(0x20, 0x7F))) + "\n\t"


def build_runnable_model_dir(root: Path, corpus: Iterable[str], template: str = TEMPLATE_NAME) -> Path:
    """:func:`build_model_dir` with a config vLLM's CPU build constructs and runs (:data:`RUNNABLE`): the template's
    tokenizer and template, no weights.

    Its vocabulary writes printable ASCII, line breaks and tabs only (:data:`RUNNABLE_ALPHABET`): a model with random
    weights samples every token its grammar allows, and XGrammar's JSON strings allow single bytes that are no UTF-8
    and control characters, which a real model does not write and the detokenizer would serve as U+FFFD."""
    build_model_dir(root, corpus, template, RUNNABLE_ALPHABET)
    path = root / "config.json"
    base = json.loads(path.read_text(encoding="utf-8"))
    keep = ("vocab_size", "max_position_embeddings", "bos_token_id", "eos_token_id")
    config = {**{k: base[k] for k in keep if k in base}, **RUNNABLE[template]}
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return root


#: the vocabularies :func:`build_real_vocab_model_dir` knows: Qwen2/3's and Qwen3.5/3.6's
REAL_VOCABULARIES = ("qwen3", "qwen3.5")


def real_vocab_tokenizer(template: str, vocabulary: str) -> PreTrainedTokenizerFast:
    """The tokenizer of :func:`build_real_vocab_model_dir`."""
    from .qwen_vocab import QWEN3, QWEN3_5, Added, build_qwen_tokenizer

    if vocabulary not in REAL_VOCABULARIES:
        raise ValueError(f"unknown vocabulary {vocabulary!r}; known: {', '.join(REAL_VOCABULARIES)}")
    model = family(template)
    source = template_path(template).read_text(encoding="utf-8")
    qwen = QWEN3 if vocabulary == "qwen3" else QWEN3_5
    if model is LONGCAT:
        added = [Added(t) for t in model.tokens()]
        tokenizer = build_qwen_tokenizer(
            qwen, added=added, eos_token=model.eos, bos_token=model.bos, pad_token=None, chat_template=source
        )
    else:
        tokenizer = build_qwen_tokenizer(qwen, eos_token=model.eos, chat_template=source)
    return tokenizer


def build_real_vocab_model_dir(
    root: Path, template: str, vocabulary: str, tokenizer: PreTrainedTokenizerFast | None = None
) -> Path:
    """A runnable model directory (:data:`RUNNABLE`) whose tokenizer has one of Qwen's real vocabularies
    (:mod:`longcat_plugins.replay.qwen_vocab`): ``qwen3`` (151,643 ranks) or ``qwen3.5`` (248,044), with the
    vocabulary's own added tokens for a Qwen template, and LongCat's markup tags (its family's tokens) as added special
    tokens after the ranks for ``longcat-flash-chat``; ``tokenizer``: that of :func:`real_vocab_tokenizer`, when the
    caller has it already.

    A real byte-level vocabulary writes any byte: a random model may leave a string's UTF-8 unfinished where nothing
    constrains it (reasoning, content), which the detokenizer holds back or serves as U+FFFD."""
    if tokenizer is None:
        tokenizer = real_vocab_tokenizer(template, vocabulary)
    root.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(root)
    config = {
        "vocab_size": len(tokenizer),
        "max_position_embeddings": 65536,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
        **RUNNABLE[template],
    }
    (root / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return root
