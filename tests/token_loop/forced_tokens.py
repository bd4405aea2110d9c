"""A test-only vLLM logits processor (``--logits-processors tests.token_loop.forced_tokens:ForcedTokens``): a request
whose ``vllm_xargs`` carry ``forced_token_ids`` writes exactly those tokens, one a step, through vLLM's real token
loop (its detokenizer, its parsers, its API's streaming), so that a tiny random model answers with a given text on
an API that takes no structured-output regex (the Anthropic Messages API). Other requests are left alone."""

from __future__ import annotations

from typing import Any

import torch
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor, MoveDirectionality

#: the ``vllm_xargs`` key of the tokens to write (the last one should end the turn: an end-of-sequence id)
FORCED: str = "forced_token_ids"


class ForcedTokens(LogitsProcessor):
    def __init__(self, vllm_config: Any, device: torch.device, is_pin_memory: bool) -> None:
        #: batch row -> (the tokens to write, the request's output tokens so far: vLLM's live list)
        self.rows: dict[int, tuple[list[int], list[int]]] = {}

    def is_argmax_invariant(self) -> bool:
        return False

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        if batch_update is None:
            return
        for index in batch_update.removed:
            self.rows.pop(index, None)
        for index, params, _prompt, output in batch_update.added:
            forced = (params.extra_args or {}).get(FORCED) if params is not None else None
            if forced:
                self.rows[index] = ([int(t) for t in forced], output)
            else:
                self.rows.pop(index, None)
        for a, b, direction in batch_update.moved:
            row_a, row_b = self.rows.pop(a, None), self.rows.pop(b, None)
            if row_a is not None:
                self.rows[b] = row_a
            if row_b is not None and direction == MoveDirectionality.SWAP:
                self.rows[a] = row_b

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        for index, (forced, output) in self.rows.items():
            if len(output) < len(forced):
                token = forced[len(output)]
                logits[index] = float("-inf")
                logits[index, token] = 0.0
        return logits
