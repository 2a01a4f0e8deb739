"""Exports a training checkpoint as a Hugging Face Qwen2 model folder.

    /usr/bin/python3 tools/train/export.py --ckpt tools/train/out/ckpt.pt --out assets/demo

Writes config.json, generation_config.json, tokenizer.json and
model.safetensors (BF16, official tensor names, no lm_head: tied). The
safetensors writer is hand-written (docs/spec/formats.md A.1): u64 LE header
length, JSON header padded with spaces to a multiple of 8, tensors in name
order with contiguous data_offsets.
"""

import argparse
import json
import os
import shutil
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import bpe  # noqa: E402
from model import Config, Qwen2  # noqa: E402


def bf16_bytes(t):
    """Round to bfloat16 (nearest even, torch's cast) and return the LE bytes."""
    return t.detach().contiguous().to(torch.bfloat16).view(torch.int16).numpy().astype("<i2").tobytes()


def write_safetensors(path, tensors, metadata=None):
    """tensors: name -> float tensor; every tensor is stored as BF16."""
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name in sorted(tensors):
        b = bf16_bytes(tensors[name])
        header[name] = {"dtype": "BF16", "shape": list(tensors[name].shape),
                        "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def read_safetensors(path):
    """name -> float32 tensor, BF16 widened exactly (bits << 16)."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "BF16", (path, name, info["dtype"])
        a, b = info["data_offsets"]
        u16 = np.frombuffer(data[base + a : base + b], dtype="<u2")
        f32 = (u16.astype(np.uint32) << 16).view(np.float32).reshape(info["shape"])
        out[name] = torch.from_numpy(f32.copy())
    return out


def hf_config(c, eot):
    """config.json as Qwen2ForCausalLM writes it (docs/spec/qwen2.md §1)."""
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "attention_dropout": 0.0,
        "bos_token_id": eot,
        "eos_token_id": eot,
        "hidden_act": "silu",
        "hidden_size": c.hidden_size,
        "initializer_range": 0.02,
        "intermediate_size": c.intermediate_size,
        "max_position_embeddings": c.max_position_embeddings,
        "max_window_layers": c.num_hidden_layers,
        "model_type": "qwen2",
        "num_attention_heads": c.num_attention_heads,
        "num_hidden_layers": c.num_hidden_layers,
        "num_key_value_heads": c.num_key_value_heads,
        "rms_norm_eps": c.rms_norm_eps,
        "rope_scaling": None,
        "rope_theta": c.rope_theta,
        "sliding_window": c.max_position_embeddings,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": c.vocab_size,
    }


def load_ckpt(path):
    ck = torch.load(path, map_location="cpu")
    fields = {k: v for k, v in ck["config"].items() if k in Config.__dataclass_fields__}
    c = Config(**fields)
    m = Qwen2(c)
    m.load_state_dict(ck["state"])
    m.eval()
    return m, ck


def load_exported(folder):
    """The PyTorch model with exactly the BF16 weights of folder/model.safetensors."""
    with open(os.path.join(folder, "config.json")) as f:
        j = json.load(f)
    c = Config(
        vocab_size=j["vocab_size"], hidden_size=j["hidden_size"],
        intermediate_size=j["intermediate_size"], num_hidden_layers=j["num_hidden_layers"],
        num_attention_heads=j["num_attention_heads"], num_key_value_heads=j["num_key_value_heads"],
        rms_norm_eps=j["rms_norm_eps"], rope_theta=j["rope_theta"],
        max_position_embeddings=j["max_position_embeddings"],
    )
    m = Qwen2(c)
    missing, unexpected = m.load_state_dict(read_safetensors(os.path.join(folder, "model.safetensors")), strict=False)
    assert not missing and not unexpected, (missing, unexpected)
    m.eval()
    return m


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(__file__)
    ap.add_argument("--ckpt", default=os.path.join(here, "out", "ckpt.pt"))
    ap.add_argument("--tokenizer", default=os.path.join(here, "out", "tokenizer.json"))
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "assets", "demo"))
    a = ap.parse_args()
    m, ck = load_ckpt(a.ckpt)
    tok = bpe.Tokenizer.load(a.tokenizer)
    assert len(tok.vocab) == m.config.vocab_size, (len(tok.vocab), m.config.vocab_size)
    os.makedirs(a.out, exist_ok=True)
    tensors = {k: v for k, v in m.state_dict().items()}
    write_safetensors(os.path.join(a.out, "model.safetensors"), tensors, {"format": "pt"})
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(hf_config(m.config, tok.eot), f, indent=2)
        f.write("\n")
    with open(os.path.join(a.out, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": tok.eot, "eos_token_id": tok.eot, "do_sample": False}, f, indent=2)
        f.write("\n")
    shutil.copyfile(a.tokenizer, os.path.join(a.out, "tokenizer.json"))
    back = read_safetensors(os.path.join(a.out, "model.safetensors"))
    for k, v in tensors.items():
        assert torch.equal(back[k], v.to(torch.bfloat16).float()), k
    vl = ck.get("val_loss", ck.get("rec", {}).get("val_loss"))  # train2.py keeps it in "rec"
    print(f"exported step {ck['step']} (val loss {vl:.4f}), {len(tensors)} tensors -> {a.out}")


if __name__ == "__main__":
    main()
