"""Perceptual memory (seed 003 §2.4): images and audio kept by reference, described in
text so they are searchable like any memory, and matched by vector when an encoder
exists."""

from .encoders import MediaEncoder, OpenAIAudioTranscriber, OpenAIImageDescriber, OpenClipEncoder
from .files import MediaFiles, MediaType, sniff_media_type
from .library import MediaLibrary

__all__ = [
    "MediaEncoder",
    "MediaFiles",
    "MediaLibrary",
    "MediaType",
    "OpenAIAudioTranscriber",
    "OpenAIImageDescriber",
    "OpenClipEncoder",
    "sniff_media_type",
]
