"""A lean CPU inference forward for BERT-architecture encoders: the first token's features only.

The classifier reads one vector per sample, the last hidden state of the first token
(:func:`~core.mce.encoder.build_network`). The ``transformers`` forward computes every token of
every layer through a general module stack; :class:`LeanBert` computes the same function with
less work, on the same weights:

- the query, key and value projections of a layer are one matrix product (weights concatenated
  once);
- in the last layer only the first token's query, attention output and feed-forward block are
  computed (the other tokens' keys and values are still needed; their outputs are not);
- in bfloat16 the weights are cast once and, where torch's oneDNN backend has them, packed once
  into its blocked layout (``torch.ops.mkldnn._linear_pointwise``), with the GELU fused into the
  intermediate product; elsewhere the plain ``F.linear`` is used;
- attention over short batches (:data:`SHORT_ATTENTION`) is two batched products with a
  float32 softmax, torch's fused kernel over longer ones;
- numerics follow ``torch.autocast("cpu", torch.bfloat16)`` on the ``transformers`` module:
  matrix products and attention in bfloat16, residual sums, softmax and layer normalisations
  in float32. In float32 the result equals the ``transformers`` forward up to float rounding.

Only BERT's own architecture is taken (``model_type == "bert"``, absolute positions, the exact
GELU, no decoder); :func:`lean_encoder` says why it declines any other encoder, and the caller
then uses the ``transformers`` forward. Exactness against that forward is tested in
``tests/core/test_mce_lean.py``; speed is measured by ``bench/mce_inference.py``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SHORT_ATTENTION", "LeanBert", "lean_encoder", "parameters_version"]

#: Batches padded to at most this many tokens compute attention as two batched matrix
#: products with a float32 softmax between them; longer ones use torch's fused
#: ``scaled_dot_product_attention``, whose CPU kernel is 2-2.5x slower on short inputs with
#: 32-wide heads but faster from about 100 tokens on (``bench/mce_inference.py``).
SHORT_ATTENTION = 64


def parameters_version(module: Any) -> tuple[int, ...]:
    """A cheap fingerprint of ``module``'s weights: each parameter's in-place version counter.

    It changes when a parameter is modified in place (an optimiser step, ``load_state_dict``,
    ``copy_``), so a :class:`LeanBert` built from older weights can be detected as stale.
    """
    return tuple(int(p._version) for p in module.parameters())


def _unsupported(encoder: Any) -> str | None:
    """Why :class:`LeanBert` cannot compute ``encoder`` (None when it can)."""
    cfg = getattr(encoder, "config", None)
    if cfg is None:
        return "the encoder has no config"
    if getattr(cfg, "model_type", None) != "bert":
        return f"model_type is {getattr(cfg, 'model_type', None)!r}, not 'bert'"
    positions = getattr(cfg, "position_embedding_type", None) or "absolute"
    if positions != "absolute":
        return f"position_embedding_type is {positions!r}, not 'absolute'"
    if getattr(cfg, "hidden_act", None) != "gelu":
        return f"hidden_act is {getattr(cfg, 'hidden_act', None)!r}, not 'gelu'"
    if getattr(cfg, "is_decoder", False) or getattr(cfg, "add_cross_attention", False):
        return "the encoder is configured as a decoder"
    if cfg.hidden_size % cfg.num_attention_heads:
        return "hidden_size is not a multiple of num_attention_heads"
    needed = ("embeddings", "encoder")
    if any(not hasattr(encoder, name) for name in needed) or not hasattr(encoder.encoder, "layer"):
        return "the encoder does not have BERT's module layout"
    return None


def _packing_works(dtype: Any) -> bool:
    """Whether oneDNN's packed linear (with a fused GELU) runs here and agrees with F.linear."""
    import torch
    import torch.nn.functional as F

    mk = getattr(torch.ops, "mkldnn", None)
    if dtype != torch.bfloat16 or mk is None or not torch.backends.mkldnn.is_available():
        return False
    try:
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(6, 3, 32, generator=gen).to(dtype)
        w = torch.randn(48, 32, generator=gen).to(dtype)
        b = torch.randn(48, generator=gen).to(dtype)
        packed = mk._reorder_linear_weight(w, 18)
        plain = mk._linear_pointwise(x, packed, b, "none", [], "")
        fused = mk._linear_pointwise(x, packed, b, "gelu", [], "none")
    except (RuntimeError, AttributeError, TypeError, NotImplementedError):
        return False
    ref = F.linear(x.float(), w.float(), b.float())
    tol = 0.05 * float(ref.abs().max())
    return bool((plain.float() - ref).abs().max() <= tol and (fused.float() - F.gelu(ref)).abs().max() <= tol)


class LeanBert:
    """The first-token features of a BERT encoder (see the module docstring).

    Build with :func:`lean_encoder`. Calling it with a padded batch (``input_ids``,
    ``attention_mask`` and optionally ``token_type_ids``, each of shape (batch, tokens)) returns
    the float32 last hidden state of each sample's first token, shape (batch, hidden_size).
    The weights are copied at build time: rebuild after the encoder's weights change
    (:func:`parameters_version`).
    """

    def __init__(self, encoder: Any, dtype: Any, packed: bool) -> None:
        import torch

        cfg = encoder.config
        self.embeddings = encoder.embeddings
        self.heads = int(cfg.num_attention_heads)
        self.head_size = int(cfg.hidden_size) // self.heads
        self.dtype = dtype
        self.packed = packed
        self.layers: list[dict[str, Any]] = []
        with torch.no_grad():
            for layer in encoder.encoder.layer:
                att = layer.attention
                qkv = (att.self.query, att.self.key, att.self.value)
                self.layers.append({
                    "qkv": self._weights(torch.cat([m.weight for m in qkv]), torch.cat([m.bias for m in qkv])),
                    "out": self._weights(att.output.dense.weight, att.output.dense.bias),
                    "norm1": att.output.LayerNorm,
                    "up": self._weights(layer.intermediate.dense.weight, layer.intermediate.dense.bias),
                    "down": self._weights(layer.output.dense.weight, layer.output.dense.bias),
                    "norm2": layer.output.LayerNorm,
                })

    def _weights(self, weight: Any, bias: Any) -> tuple[Any, Any]:
        import torch

        w = weight.detach().to(self.dtype).contiguous()
        b = bias.detach().to(self.dtype).contiguous()
        if self.packed:
            w = torch.ops.mkldnn._reorder_linear_weight(w, 1024)
        return w, b

    def _linear(self, x: Any, wb: tuple[Any, Any], gelu: bool = False) -> Any:
        import torch
        import torch.nn.functional as F

        if self.packed:
            if gelu:
                return torch.ops.mkldnn._linear_pointwise(x, wb[0], wb[1], "gelu", [], "none")
            return torch.ops.mkldnn._linear_pointwise(x, wb[0], wb[1], "none", [], "")
        y = F.linear(x, wb[0], wb[1])
        return F.gelu(y) if gelu else y

    def __call__(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None, **_: Any) -> Any:
        import torch
        import torch.nn.functional as F

        x = self.embeddings(input_ids=input_ids, token_type_ids=token_type_ids).float()
        n, t, hidden = x.shape
        keep = attention_mask[:, None, None, :].bool()
        mask = None if bool(keep.all()) else torch.zeros(keep.shape).masked_fill(~keep, float("-inf"))
        scale = self.head_size ** -0.5
        last = len(self.layers) - 1
        for i, p in enumerate(self.layers):
            qkv = self._linear(x.to(self.dtype), p["qkv"]).view(n, t, 3, self.heads, self.head_size)
            q, k, v = (part.transpose(1, 2) for part in qkv.unbind(2))
            if i == last:  # only the first token's output is read
                q, x = q[:, :, :1], x[:, :1]
            if t <= SHORT_ATTENTION:  # scores as one batched product, softmax in float32
                s = torch.matmul(q, k.transpose(-1, -2)).float().mul_(scale)
                if mask is not None:
                    s.add_(mask)
                a = torch.matmul(torch.softmax(s, dim=-1).to(self.dtype), v)
            else:
                a = F.scaled_dot_product_attention(q, k, v, attn_mask=None if mask is None else mask.to(self.dtype))
            a = a.transpose(1, 2).reshape(n, -1, hidden)
            x = p["norm1"](torch.add(x, self._linear(a, p["out"])))  # float32 sum, as under autocast
            h = self._linear(x.to(self.dtype), p["up"], gelu=True)
            x = p["norm2"](torch.add(x, self._linear(h, p["down"])))
        return x[:, 0]


def lean_encoder(encoder: Any, *, bf16: bool) -> tuple[LeanBert | None, str]:
    """``(lean, why)``: a :class:`LeanBert` of ``encoder`` in bfloat16 (``bf16``) or float32.

    ``lean`` is None when ``encoder`` is not BERT's architecture; ``why`` then says what
    differs, else it names the path (packed oneDNN weights or plain ``F.linear``).
    """
    import torch

    reason = _unsupported(encoder)
    if reason is not None:
        return None, reason
    dtype = torch.bfloat16 if bf16 else torch.float32
    packed = _packing_works(dtype)
    lean = LeanBert(encoder, dtype, packed)
    how = "oneDNN packed weights" if packed else "F.linear"
    return lean, f"lean BERT forward, {'bfloat16' if bf16 else 'float32'}, {how}"
