"""Real media for tests: small images and sounds made here, and a tiny CLIP model built
with random weights from a config (no download), saved to disk as users would."""

from __future__ import annotations

import io
import json
import math
import struct
import wave
from pathlib import Path


def png(color: tuple[int, int, int] = (200, 120, 40), size: tuple[int, int] = (40, 30)) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


def wav(seconds: float = 0.2, hz: float = 440.0) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        frames = int(8000 * seconds)
        out.writeframes(
            b"".join(
                struct.pack("<h", int(8000 * math.sin(2 * math.pi * hz * i / 8000)))
                for i in range(frames)
            )
        )
    return buffer.getvalue()


def tiny_transformers_clip(folder: Path) -> Path:
    """A randomly initialised CLIP (16-dimensional) with its processor, saved in ``folder``."""
    import torch
    from transformers import (
        CLIPConfig,
        CLIPImageProcessor,
        CLIPModel,
        CLIPProcessor,
        CLIPTokenizer,
    )

    folder.mkdir(parents=True, exist_ok=True)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    vocab.update({c: len(vocab) for c in letters})
    vocab.update({f"{c}</w>": len(vocab) for c in letters})
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    tokenizer = CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    images = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    config = CLIPConfig(
        text_config={
            "vocab_size": len(vocab),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "max_position_embeddings": 32,
            "bos_token_id": 0,
            "eos_token_id": 1,
            "pad_token_id": 1,
        },
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 16,
        },
        projection_dim=16,
    )
    torch.manual_seed(0)
    CLIPModel(config).save_pretrained(folder)
    CLIPProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(folder)
    return folder


OPEN_CLIP_CONFIG = {
    "embed_dim": 16,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "patch_size": 16, "head_width": 16},
    "text_cfg": {"context_length": 16, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
}


def tiny_open_clip(folder: Path) -> tuple[Path, Path]:
    """A randomly initialised open_clip model from a config file; returns (config, weights)."""
    import open_clip
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "tiny-clip.json"
    config.write_text(json.dumps(OPEN_CLIP_CONFIG), encoding="utf-8")
    open_clip.add_model_config(config)
    torch.manual_seed(0)
    model = open_clip.create_model("tiny-clip")
    weights = folder / "tiny-clip.pt"
    torch.save(model.state_dict(), weights)
    return config, weights
