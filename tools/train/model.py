"""A Qwen2 decoder in PyTorch, written from docs/spec/qwen2.md.

Parameter names are the Hugging Face ones (model.layers.N.self_attn.q_proj
...), so export is a rename-free dump. Shapes in comments: B batch, T
positions, h hidden, H query heads, KV key/value heads, d head_dim,
I intermediate, V vocab.
"""

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    vocab_size: int = 4096
    hidden_size: int = 256
    intermediate_size: int = 768
    num_hidden_layers: int = 4
    num_attention_heads: int = 8
    num_key_value_heads: int = 2
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    max_position_embeddings: int = 256
    dropout: float = 0.0  # training only; Qwen2 has none at inference

    @property
    def head_dim(self):
        return self.hidden_size // self.num_attention_heads

    def to_dict(self):
        return asdict(self)


class RMSNorm(nn.Module):
    """y = w * x / sqrt(mean(x^2) + eps), eps inside the root (docs/spec/qwen2.md §3.2)."""

    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        ms = x.float().pow(2).mean(-1, keepdim=True)
        return self.weight * (x.float() * torch.rsqrt(ms + self.eps)).to(x.dtype)


def rope_tables(T, d, theta, device=None):
    """cos, sin [T, d]: the d/2 angles p*theta^(-2i/d) concatenated twice."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float32, device=device) / d))
    ang = torch.outer(torch.arange(T, dtype=torch.float32, device=device), inv_freq)  # [T, d/2]
    ang = torch.cat([ang, ang], dim=-1)
    return ang.cos(), ang.sin()


def rotate_half(u):
    """(u1, u2) -> (-u2, u1): pairs are (i, i + d/2), not neighbours."""
    a, b = u.chunk(2, dim=-1)
    return torch.cat([-b, a], dim=-1)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, H, KV, h = c.head_dim, c.num_attention_heads, c.num_key_value_heads, c.hidden_size
        self.H, self.KV, self.d = H, KV, d
        self.q_proj = nn.Linear(h, H * d, bias=True)  # [H*d, h] + [H*d]
        self.k_proj = nn.Linear(h, KV * d, bias=True)  # [KV*d, h] + [KV*d]
        self.v_proj = nn.Linear(h, KV * d, bias=True)
        self.o_proj = nn.Linear(H * d, h, bias=False)  # [h, H*d]

    def forward(self, x, cos, sin, want_probs=False):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.H, self.d).transpose(1, 2)  # [B, H, T, d]
        k = self.k_proj(x).view(B, T, self.KV, self.d).transpose(1, 2)  # [B, KV, T, d]
        v = self.v_proj(x).view(B, T, self.KV, self.d).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.H // self.KV  # query head qh reads kv head qh // rep
        k = k.repeat_interleave(rep, dim=1)  # [B, H, T, d]
        v = v.repeat_interleave(rep, dim=1)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(self.d)  # [B, H, T, T]
        mask = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        s = s.masked_fill(mask, float("-inf"))
        p = F.softmax(s.float(), dim=-1).to(q.dtype)
        o = (p @ v).transpose(1, 2).reshape(B, T, self.H * self.d)
        return self.o_proj(o), (p if want_probs else None)


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)  # [I, h]
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)  # [I, h]
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, bias=False)  # [h, I]

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)
        self.mlp = MLP(c)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x, cos, sin, want_probs=False):
        a, p = self.self_attn(self.input_layernorm(x), cos, sin, want_probs)
        x = x + self.drop(a)
        x = x + self.drop(self.mlp(self.post_attention_layernorm(x)))
        return x, p


class Inner(nn.Module):
    """Holds the weights under the prefix "model." like Qwen2Model."""

    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size)  # [V, h]
        self.layers = nn.ModuleList([Layer(c) for _ in range(c.num_hidden_layers)])
        self.norm = RMSNorm(c.hidden_size, c.rms_norm_eps)


class Qwen2(nn.Module):
    """Qwen2ForCausalLM with tied embeddings: logits = norm(x) . E^T."""

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.model = Inner(c)
        self.apply(self._init)
        # GPT-2 style: shrink the residual-branch outputs by 1/sqrt(2L).
        for layer in self.model.layers:
            for w in (layer.self_attn.o_proj.weight, layer.mlp.down_proj.weight):
                nn.init.normal_(w, std=0.02 / math.sqrt(2 * c.num_hidden_layers))

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)

    def forward(self, ids, want_probs=False):
        """ids [B, T] -> logits [B, T, V] (and per-layer attention [B, H, T, T])."""
        c = self.config
        T = ids.shape[1]
        cos, sin = rope_tables(T, c.head_dim, c.rope_theta, ids.device)
        x = self.model.embed_tokens(ids)
        probs = []
        for layer in self.model.layers:
            x, p = layer(x, cos, sin, want_probs)
            probs.append(p)
        x = self.model.norm(x)
        logits = x @ self.model.embed_tokens.weight.t()
        return (logits, probs) if want_probs else logits

    def num_params(self):
        return sum(p.numel() for p in self.parameters())
