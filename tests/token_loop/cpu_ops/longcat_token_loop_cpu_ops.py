"""TEST-ONLY: plain torch versions of the kernels LongCat-Flash's zero-expert router calls (``fused_topk_bias``, which
reaches the CUDA op ``topk_softmax``, and the Triton kernel ``zero_experts_compute_triton``), swapped into vLLM's
router module when vLLM loads its general plugins (in every vLLM process). Only the token-loop suite's environment
installs it; the router's arithmetic is the same, only slower."""

from __future__ import annotations

from typing import Any


def fused_topk_bias(
    hidden_states: Any,
    gating_output: Any,
    e_score_correction_bias: Any,
    topk: int,
    renormalize: bool,
    scoring_func: str = "softmax",
    indices_type: Any = None,
    **_: Any,
) -> tuple[Any, Any]:
    """Scores (softmax or sigmoid), experts chosen on score + bias, weighted by the unbiased score."""
    import torch

    logits = gating_output.float()
    scores = logits.softmax(dim=-1) if scoring_func == "softmax" else logits.sigmoid()
    ids = (scores + e_score_correction_bias.float()).topk(topk, dim=-1).indices
    weights = scores.gather(-1, ids)
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights.to(torch.float32), ids.to(indices_type or torch.int32)


def zero_experts_compute(
    expert_indices: Any, expert_scales: Any, num_experts: int, zero_expert_type: str, hidden_states: Any
) -> Any:
    """The zero experts' share of the output: an identity zero expert adds its weight times the input."""
    import torch

    if zero_expert_type != "identity":
        return torch.zeros_like(hidden_states)
    scales = expert_scales.float().masked_fill(expert_indices < num_experts, 0.0).sum(dim=-1, keepdim=True)
    return (hidden_states.float() * scales).to(hidden_states.dtype)


def register() -> None:
    from vllm.model_executor.layers.fused_moe.router import zero_expert_router

    zero_expert_router.fused_topk_bias = fused_topk_bias  # type: ignore[attr-defined]
    zero_expert_router.zero_experts_compute_triton = zero_experts_compute  # type: ignore[attr-defined]
