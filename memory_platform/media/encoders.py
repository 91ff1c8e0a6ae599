"""Media encoders, pluggable per modality as embedders are.

An encoder may describe a medium in words (an OpenAI-compatible vision or transcription
endpoint), embed it in a vector space shared with text (a local CLIP model through
``open_clip``), or both. Without an encoder the caller's description is all there is.
Models are never fetched at run time: CLIP weights must be a file on disk.
"""

from __future__ import annotations

import base64
import io
import threading
from abc import ABC
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..config import MediaSettings, Settings
from ..errors import ConfigurationError, InvalidInputError
from ..llm import call_endpoint
from .files import MediaType

__all__ = [
    "MediaEncoder",
    "OpenAIAudioTranscriber",
    "OpenAIImageDescriber",
    "OpenClipEncoder",
    "TransformersClipEncoder",
    "make_encoders",
]

_DESCRIBE_PROMPT = (
    "Describe this image for a personal memory archive in one or two plain sentences: "
    "who or what is in it, where, and what is happening. Answer in the language of any "
    "text in the image, else in English."
)


class MediaEncoder(ABC):  # noqa: B024 - every method has a "cannot do this" default
    """What an encoder can do for one modality; each ability answers None when absent."""

    modality: str = "image"
    model: str = ""
    """Identifies the vector space; vectors of another model are never compared."""

    def describe(self, data: bytes, media_type: MediaType) -> str | None:
        """A text description of the medium, or None."""
        return None

    def embed(self, data: bytes, media_type: MediaType) -> npt.NDArray[np.float32] | None:
        """The medium's vector, or None."""
        return None

    def embed_text(self, text: str) -> npt.NDArray[np.float32] | None:
        """A query's vector in the same space as :meth:`embed`, or None."""
        return None

    @property
    def embeds(self) -> bool:
        """Whether this encoder produces vectors (overridden by those that do)."""
        return False


def _openai_client(settings: Settings) -> Any:
    media = settings.media
    base_url = media.openai_base_url or settings.llm_base_url
    if not base_url:
        raise ConfigurationError(
            "an OpenAI-compatible media encoder needs media.openai_base_url or llm_base_url "
            "(MEMORY_MEDIA__OPENAI_BASE_URL / MEMORY_LLM_BASE_URL)"
        )
    key = media.openai_api_key or settings.llm_api_key
    try:
        from openai import OpenAI
    except ImportError as exc:
        raise ConfigurationError(
            "a media encoder is configured but the openai package is missing "
            "(pip install 'memory-platform[llm]')"
        ) from exc
    return OpenAI(
        base_url=base_url,
        api_key=key.get_secret_value() if key else "not-needed",
        timeout=settings.llm_timeout,
        max_retries=2,
    )


class OpenAIImageDescriber(MediaEncoder):
    """Describes images through a chat-completions endpoint that accepts images."""

    modality = "image"

    def __init__(self, client: Any, model: str) -> None:
        self._client = client
        self.model = model

    def describe(self, data: bytes, media_type: MediaType) -> str | None:
        url = f"data:{media_type.mime};base64,{base64.b64encode(data).decode('ascii')}"
        response = call_endpoint(
            "vision",
            lambda: self._client.chat.completions.create(
                model=self.model,
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": _DESCRIBE_PROMPT},
                            {"type": "image_url", "image_url": {"url": url}},
                        ],
                    }
                ],
            ),
        )
        text = (response.choices[0].message.content or "").strip()
        return text or None


class OpenAIAudioTranscriber(MediaEncoder):
    """Transcribes audio through an OpenAI-compatible ``/audio/transcriptions`` endpoint."""

    modality = "audio"

    def __init__(self, client: Any, model: str) -> None:
        self._client = client
        self.model = model

    def describe(self, data: bytes, media_type: MediaType) -> str | None:
        response = call_endpoint(
            "transcription",
            lambda: self._client.audio.transcriptions.create(
                model=self.model,
                file=(f"audio{media_type.extension}", data, media_type.mime),
            ),
        )
        text = (getattr(response, "text", "") or "").strip()
        return text or None


class OpenClipEncoder(MediaEncoder):
    """A local CLIP model through ``open_clip``: image and text vectors in one space.

    Args:
        model_name: the architecture (``ViT-B-32``, or the name of ``config``'s file).
        weights: the checkpoint on disk; nothing is downloaded.
        config: a JSON model config for an architecture ``open_clip`` does not ship; its
            file name (without ``.json``) is the architecture's name.
    """

    modality = "image"

    def __init__(self, model_name: str, weights: Path, config: Path | None = None) -> None:
        if not weights.is_file():
            raise ConfigurationError(
                f"media.clip_weights {str(weights)!r} is not a file; point it at the "
                "open_clip checkpoint on disk (weights are never downloaded)"
            )
        if config is not None and not config.is_file():
            raise ConfigurationError(f"media.clip_config {str(config)!r} is not a file")
        self._name = config.stem if config is not None else model_name
        self._weights = weights
        self._config = config
        self.model = f"open_clip/{self._name}/{weights.name}"
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any, Any] | None = None

    @property
    def embeds(self) -> bool:
        return True

    def _load(self) -> tuple[Any, Any, Any]:
        with self._lock:
            if self._loaded is None:
                try:
                    import open_clip
                except ImportError as exc:
                    raise ConfigurationError(
                        "media.image_encoder 'open_clip' needs open-clip-torch and a torchvision "
                        f"that imports beside your torch (pip install 'memory-platform[media]'): {exc}"
                    ) from exc
                if self._config is not None:
                    open_clip.add_model_config(self._config)
                model, _, preprocess = open_clip.create_model_and_transforms(
                    self._name, pretrained=str(self._weights), device="cpu"
                )
                model.eval()
                self._loaded = (model, preprocess, open_clip.get_tokenizer(self._name))
            return self._loaded

    def embed(self, data: bytes, media_type: MediaType) -> npt.NDArray[np.float32] | None:
        import torch

        model, preprocess, _ = self._load()
        image = _decode_image(data)
        with torch.no_grad():
            return _unit(model.encode_image(preprocess(image).unsqueeze(0)))

    def embed_text(self, text: str) -> npt.NDArray[np.float32] | None:
        import torch

        model, _, tokenizer = self._load()
        with torch.no_grad():
            return _unit(model.encode_text(tokenizer([text])))


class TransformersClipEncoder(MediaEncoder):
    """A local CLIP model through ``transformers`` (``CLIPModel`` and its processor saved
    with ``save_pretrained`` in one folder): image and text vectors in one space, with
    torch and Pillow but without torchvision. Nothing is downloaded."""

    modality = "image"

    def __init__(self, folder: Path) -> None:
        if not folder.is_dir():
            raise ConfigurationError(
                f"media.clip_dir {str(folder)!r} is not a folder; point it at a CLIP model "
                "saved with save_pretrained (weights are never downloaded)"
            )
        self._folder = folder
        self.model = f"transformers_clip/{folder.name}"
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    @property
    def embeds(self) -> bool:
        return True

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                try:
                    from transformers import CLIPModel, CLIPProcessor
                except ImportError as exc:
                    raise ConfigurationError(
                        "media.image_encoder 'transformers_clip' needs torch, transformers and "
                        "Pillow (pip install torch==2.13.0 'memory-platform[embeddings,media]')"
                    ) from exc
                model = CLIPModel.from_pretrained(self._folder, local_files_only=True)
                model.eval()
                processor = CLIPProcessor.from_pretrained(self._folder, local_files_only=True)
                self._loaded = (model, processor)
            return self._loaded

    def embed(self, data: bytes, media_type: MediaType) -> npt.NDArray[np.float32] | None:
        import torch

        model, processor = self._load()
        image = _decode_image(data)
        with torch.no_grad():
            inputs = processor(images=image, return_tensors="pt")
            return _unit(model.get_image_features(**inputs))

    def embed_text(self, text: str) -> npt.NDArray[np.float32] | None:
        import torch

        model, processor = self._load()
        with torch.no_grad():
            inputs = processor(text=[text], return_tensors="pt", padding=True, truncation=True)
            return _unit(model.get_text_features(**inputs))


def _decode_image(data: bytes) -> Any:
    """The image as RGB for a CLIP preprocessor; a file that does not decode is refused."""
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError as exc:
        raise ConfigurationError(
            "a local CLIP encoder needs Pillow (pip install 'memory-platform[media]')"
        ) from exc
    try:
        return Image.open(io.BytesIO(data)).convert("RGB")
    except (UnidentifiedImageError, OSError) as exc:
        raise InvalidInputError(f"the image cannot be decoded: {exc}", "media") from exc


def _unit(tensor: Any) -> npt.NDArray[np.float32]:
    """A one-row model output as a unit-length float32 vector (transformers 5 returns the
    projected features as ``pooler_output``; earlier releases and open_clip a tensor)."""
    output = getattr(tensor, "pooler_output", tensor)
    vector: npt.NDArray[np.float32] = output.detach().cpu().numpy().astype(np.float32).reshape(-1)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def make_encoders(settings: Settings) -> dict[str, MediaEncoder]:
    """The encoders the settings configure, by modality (absent: description only)."""
    media: MediaSettings = settings.media
    encoders: dict[str, MediaEncoder] = {}
    if media.image_encoder == "openai":
        encoders["image"] = OpenAIImageDescriber(_openai_client(settings), media.vision_model)
    elif media.image_encoder == "open_clip":
        if media.clip_weights is None:
            raise ConfigurationError(
                "media.image_encoder 'open_clip' needs media.clip_weights "
                "(MEMORY_MEDIA__CLIP_WEIGHTS), a checkpoint file on disk"
            )
        encoders["image"] = OpenClipEncoder(media.clip_model, media.clip_weights, media.clip_config)
    elif media.image_encoder == "transformers_clip":
        if media.clip_dir is None:
            raise ConfigurationError(
                "media.image_encoder 'transformers_clip' needs media.clip_dir "
                "(MEMORY_MEDIA__CLIP_DIR), a CLIP model folder on disk"
            )
        encoders["image"] = TransformersClipEncoder(media.clip_dir)
    if media.audio_encoder == "openai":
        encoders["audio"] = OpenAIAudioTranscriber(
            _openai_client(settings), media.transcription_model
        )
    return encoders
