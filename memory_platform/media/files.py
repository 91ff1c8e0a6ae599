"""Media bytes on disk, by content hash; what kind of file they are, from the bytes."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInputError
from ..textutil import user_token

__all__ = ["SUPPORTED", "MediaFiles", "MediaType", "read_media", "sniff_media_type"]


@dataclass(frozen=True)
class MediaType:
    """A recognised file type."""

    modality: str
    mime: str
    extension: str


_PNG = MediaType("image", "image/png", ".png")
_JPEG = MediaType("image", "image/jpeg", ".jpg")
_GIF = MediaType("image", "image/gif", ".gif")
_WEBP = MediaType("image", "image/webp", ".webp")
_WAV = MediaType("audio", "audio/wav", ".wav")
_MP3 = MediaType("audio", "audio/mpeg", ".mp3")
_OGG = MediaType("audio", "audio/ogg", ".ogg")
_FLAC = MediaType("audio", "audio/flac", ".flac")
_M4A = MediaType("audio", "audio/mp4", ".m4a")
SUPPORTED = (_PNG, _JPEG, _GIF, _WEBP, _WAV, _MP3, _OGG, _FLAC, _M4A)


def sniff_media_type(data: bytes) -> MediaType | None:
    """The file type the leading bytes announce, or None when not a supported one."""
    head = data[:16]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return _PNG
    if head.startswith(b"\xff\xd8\xff"):
        return _JPEG
    if head.startswith((b"GIF87a", b"GIF89a")):
        return _GIF
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return _WEBP
    if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
        return _WAV
    if head.startswith(b"ID3") or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return _MP3
    if head.startswith(b"OggS"):
        return _OGG
    if head.startswith(b"fLaC"):
        return _FLAC
    if head[4:8] == b"ftyp" and head[8:11] in (b"M4A", b"mp4", b"iso", b"M4B"):
        return _M4A
    return None


class MediaFiles:
    """Media bytes in a folder, one file per (user, content hash); the graph holds only
    the reference. Users' files live in separate folders named by a hash of the user id,
    so no user text reaches a path."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, user_id: str, sha256: str, extension: str) -> Path:
        return self.folder / user_token(user_id) / f"{sha256}{extension}"

    def put(self, user_id: str, data: bytes, media_type: MediaType) -> tuple[str, Path, bool]:
        """Store the bytes (atomically); returns the hash, the path and whether the file
        is new (an identical file already stored is shared)."""
        sha256 = hashlib.sha256(data).hexdigest()
        target = self.path(user_id, sha256, media_type.extension)
        if target.exists():
            return sha256, target, False
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(handle.name, target)
        except OSError as exc:
            raise InvalidInputError(f"cannot store the media file: {exc}", "media") from exc
        return sha256, target, True

    def remove(self, user_id: str, sha256: str) -> int:
        """Delete every stored file of this hash for the user; returns how many."""
        folder = self.folder / user_token(user_id)
        removed = 0
        for file in folder.glob(f"{sha256}.*") if folder.is_dir() else []:
            file.unlink(missing_ok=True)
            removed += 1
        return removed

    def remove_user(self, user_id: str) -> int:
        """Delete every stored file of the user; returns how many."""
        folder = self.folder / user_token(user_id)
        if not folder.is_dir():
            return 0
        removed = 0
        for file in folder.iterdir():
            if file.is_file():
                file.unlink(missing_ok=True)
                removed += 1
        with contextlib.suppress(OSError):
            folder.rmdir()
        return removed


def read_media(source: bytes | str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of a path or of the bytes given, refusing what is too large or unreadable."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    elif isinstance(source, str | os.PathLike):
        path = Path(source)
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise InvalidInputError(f"cannot read {str(path)!r}: {exc.strerror}", "media") from exc
        except ValueError as exc:  # a NUL character, or a lone surrogate no file name holds
            raise InvalidInputError(f"is no path a file can have ({exc})", "media") from exc
        if not path.is_file():
            raise InvalidInputError(f"{str(path)!r} is not a file", "media")
        if size > max_bytes:
            raise InvalidInputError(
                f"the file has {size} bytes; the limit is {max_bytes} (media.max_bytes)", "media"
            )
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InvalidInputError(f"cannot read {str(path)!r}: {exc.strerror}", "media") from exc
    else:
        raise InvalidInputError("must be bytes or a path to a file", "media")
    if not data:
        raise InvalidInputError("the media is empty", "media")
    if len(data) > max_bytes:
        raise InvalidInputError(
            f"the media has {len(data)} bytes; the limit is {max_bytes} (media.max_bytes)",
            "media",
        )
    return data
