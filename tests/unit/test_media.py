"""Perceptual memory (seed 003 §2.4): images and sounds stored by reference, described,
searchable by description and, with an encoder, by vector; bad input writes nothing."""

from __future__ import annotations

import base64
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_platform import MemoryPlatform, Settings
from memory_platform.embeddings import Embedder
from memory_platform.errors import ConfigurationError, InvalidInputError, NotFoundError
from memory_platform.llm import LLMUnavailableError
from memory_platform.media import sniff_media_type
from tests.support.media import png, tiny_open_clip, tiny_transformers_clip, wav
from tests.support.openai_stub import OpenAIStub

USER = "media-user"


def open_platform(tmp_path: Path, embedder: Embedder, **media: Any) -> MemoryPlatform:
    settings = Settings(
        sqlite_path=tmp_path / "m.db",
        media={"folder": tmp_path / "media", **media},
        _env_file=None,
    )
    return MemoryPlatform(settings, embedder=embedder)


@pytest.fixture
def mp(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryPlatform]:
    platform = open_platform(tmp_path, embedder, max_bytes=50_000)
    yield platform
    platform.close()


def stored_files(mp: MemoryPlatform) -> list[Path]:
    folder = mp.settings.media.folder
    assert folder is not None
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (png(), "image/png"),
        (b"\xff\xd8\xff\xe0" + b"\0" * 20, "image/jpeg"),
        (b"GIF89a" + b"\0" * 20, "image/gif"),
        (b"RIFF\0\0\0\0WEBPVP8 ", "image/webp"),
        (wav(), "audio/wav"),
        (b"ID3\x04" + b"\0" * 20, "audio/mpeg"),
        (b"\xff\xfb\x90\x64" + b"\0" * 20, "audio/mpeg"),  # a frame, no ID3 tag
        (b"OggS" + b"\0" * 20, "audio/ogg"),
        (b"fLaC" + b"\0" * 20, "audio/flac"),
        (b"\0\0\0\x20ftypM4A " + b"\0" * 20, "audio/mp4"),
        (b"\0\0\0\x18ftypmp42" + b"\0" * 20, "audio/mp4"),
        (b"\0\0\0\x18ftypisom" + b"\0" * 20, "audio/mp4"),
    ],
)
def test_file_types_are_read_from_the_bytes(data: bytes, mime: str) -> None:
    found = sniff_media_type(data)
    assert found is not None and found.mime == mime


def test_an_image_with_a_description_is_stored_by_reference_and_found_by_it(
    mp: MemoryPlatform,
) -> None:
    image = png()
    stored = mp.add_media(USER, image, "image", "sunset over the harbour in Lisbon")
    [file] = stored_files(mp)
    assert file.read_bytes() == image and file.suffix == ".png"
    assert stored.sha256 in file.name and USER not in str(file)  # no user text in paths
    assert (stored.mime, stored.size, stored.described_by) == ("image/png", len(image), "caller")

    mp.wait_for_indexing(USER)
    [hit] = mp.search(USER, "harbour sunset Lisbon", record_access=False)
    assert hit.id == stored.episode_id and hit.kind == "episode"
    assert hit.matched_modality == "text"
    assert hit.metadata["media"]["sha256"] == stored.sha256


def test_the_same_bytes_twice_share_one_file_until_both_are_forgotten(
    mp: MemoryPlatform,
) -> None:
    image = png((10, 20, 30))
    first = mp.add_media(USER, image, "image", "the red door of our first flat")
    second = mp.add_media(USER, image, "image", "the same door, sent again")
    assert len(stored_files(mp)) == 1
    assert mp.forget(USER, first.episode_id).media_files == 0  # still used by the second
    assert len(stored_files(mp)) == 1
    assert mp.forget(USER, second.episode_id).media_files == 1
    assert stored_files(mp) == []
    with pytest.raises(NotFoundError):
        mp.forget(USER, second.episode_id)


def test_a_write_that_fails_takes_back_its_own_file_and_never_a_shared_one(
    mp: MemoryPlatform,
) -> None:
    """The episode is written after the file: when that write is refused, a file the
    media brought is removed, and one an earlier memory already uses is left."""
    image = png((40, 50, 60))
    kept = mp.add_media(USER, image, "image", "the blue gate")
    with pytest.raises(InvalidInputError, match="timestamp"):
        mp.add_media(USER, image, "image", "the gate again", timestamp="not a time")
    with pytest.raises(InvalidInputError, match="timestamp"):
        mp.add_media(USER, png((7, 8, 9)), "image", "a new one", timestamp="not a time")

    assert [p.name for p in stored_files(mp)] == [Path(kept.file).name]
    assert Path(kept.file).read_bytes() == image and mp.stats(USER).episodes == 1


@pytest.mark.parametrize(
    ("source", "modality", "description", "error"),
    [
        (png(), "video", "x", "not a modality"),
        (wav(), "image", "a song", "audio/wav, not image"),
        (png(), "audio", "a song", "image/png, not audio"),
        (b"hello, this is text", "image", "x", "not a supported image or audio file"),
        (b"", "image", "x", "empty"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 60_000, "image", "x", "limit is 50000"),
        ("missing.png", "image", "x", "cannot read"),
        (".", "image", "x", "is not a file"),
        (png(), "image", None, "no description"),
        (png(), "image", "   ", "no description"),
        (12345, "image", "x", "bytes or a path"),
    ],
)
def test_bad_media_gets_a_clear_error_and_writes_nothing(
    mp: MemoryPlatform, tmp_path: Path, source: Any, modality: str, description: Any, error: str
) -> None:
    if source == "missing.png":
        source = tmp_path / "missing.png"
    elif source == ".":
        source = tmp_path
    with pytest.raises(InvalidInputError, match=error):
        mp.add_media(USER, source, modality, description)  # type: ignore[arg-type]
    assert mp.stats(USER).episodes == 0
    assert stored_files(mp) == []


def test_a_path_on_disk_works_like_bytes(mp: MemoryPlatform, tmp_path: Path) -> None:
    path = tmp_path / "beep.wav"
    path.write_bytes(wav())
    stored = mp.add_media(USER, path, "audio", "the kettle's whistle")
    assert (stored.modality, stored.mime) == ("audio", "audio/wav")
    oversize = tmp_path / "big.wav"
    oversize.write_bytes(wav(seconds=5))
    with pytest.raises(InvalidInputError, match=r"the file has .* the limit"):
        mp.add_media(USER, oversize, "audio", "too long")  # refused before it is read
    assert mp.stats(USER).episodes == 1


def test_an_openai_compatible_endpoint_describes_images_and_transcribes_audio(
    tmp_path: Path, embedder: Embedder, stub: OpenAIStub
) -> None:
    with open_platform(
        tmp_path,
        embedder,
        image_encoder="openai",
        audio_encoder="openai",
        openai_base_url=stub.base_url,
        vision_model="vision-stub",
    ) as mp:
        image = png((30, 90, 200))
        stub.reply("A blue beach umbrella on white sand.")
        described = mp.add_media(USER, image, "image")
        assert described.description == "A blue beach umbrella on white sand."
        assert described.described_by == "vision-stub"
        request = stub.requests[-1]["body"]
        assert request["model"] == "vision-stub"
        part = request["messages"][0]["content"][1]
        assert part["image_url"]["url"] == (
            "data:image/png;base64," + base64.b64encode(image).decode()
        )

        stub.transcribe("remember to buy oat milk")
        heard = mp.add_media(USER, wav(), "audio")
        assert heard.description == "remember to buy oat milk"
        assert b"whisper-1" in stub.requests[-1]["body"]

        stub.transcribe("ignored")
        kept = mp.add_media(USER, wav(hz=880), "audio", "my voice note about the garden")
        assert kept.description == "my voice note about the garden"  # the caller's wins
        episode = mp.store.get_episodes(USER, [kept.episode_id])[0]
        assert episode.metadata["media"]["generated_description"] == "ignored"

        mp.wait_for_indexing(USER)
        hits = mp.search(USER, "beach umbrella", record_access=False)
        assert hits[0].id == described.episode_id

        stub.fail(503)
        stub.fail(503)
        stub.fail(503)
        with pytest.raises(LLMUnavailableError):
            mp.add_media(USER, png((1, 2, 3)), "image")
        assert mp.stats(USER).episodes == 3 and len(stored_files(mp)) == 3  # nothing new


@pytest.mark.slow
def test_a_local_clip_model_finds_an_image_by_its_vector(
    tmp_path: Path, embedder: Embedder
) -> None:
    folder = tiny_transformers_clip(tmp_path / "tiny-clip")
    # a random model's similarities mean nothing, so every vector counts as a match here;
    # what is tested is the real loading, encoding, storing and cross-modal search path
    with open_platform(
        tmp_path, embedder, image_encoder="transformers_clip", clip_dir=folder, min_similarity=-1
    ) as mp:
        stored = mp.add_media(USER, png(), "image", "IMG_2041")
        kept = mp.add_media(USER, png(), "image", "IMG_2042", metadata={"searchable": False})
        assert stored.vector_model == "transformers_clip/tiny-clip"
        mp.add_episode(USER, "we talked about the weather", speaker="user")
        mp.wait_for_indexing(USER)
        hits = mp.search(USER, "the photo of the beach", record_access=False)
        image_hits = [h for h in hits if h.id == stored.episode_id]
        assert image_hits and image_hits[0].matched_modality == "image"
        assert kept.episode_id not in {h.id for h in hits}  # kept, but never matched
        assert kept.vector_model is None  # nor encoded
        assert 0.5 <= image_hits[0].relevance <= 1.0
        [vector_hit] = mp.store.media_vector_search(
            USER, "image", "transformers_clip/tiny-clip", [1.0] * 16, k=5
        )
        assert vector_hit.ref_id == stored.episode_id
        assert mp.store.media_vector_search(USER, "image", "another-model", [1.0] * 16) == []
        assert mp.search(USER, "beach", record_access=False, kinds=("memory",)) == []

        mp.forget(USER, stored.episode_id)
        assert mp.store.media_vector_search(USER, "image", stored.vector_model, [1.0] * 16) == []

    with pytest.raises(ConfigurationError, match="not a folder"):
        open_platform(
            tmp_path, embedder, image_encoder="transformers_clip", clip_dir=tmp_path / "none"
        )


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("open_clip") is None,
    reason="open-clip-torch is not installed: it needs a torchvision that imports beside torch "
    "(the 'open-clip' extra; PyPI's torchvision does not import beside the CPU torch 2.13.0)",
)
def test_an_open_clip_model_from_a_config_file_encodes_images_and_text(
    tmp_path: Path, embedder: Embedder
) -> None:
    config, weights = tiny_open_clip(tmp_path / "open-clip")
    with open_platform(
        tmp_path,
        embedder,
        image_encoder="open_clip",
        clip_config=config,
        clip_weights=weights,
        min_similarity=-1,
    ) as mp:
        stored = mp.add_media(USER, png(), "image", "IMG_7")
        assert stored.vector_model == "open_clip/tiny-clip/tiny-clip.pt"
        hits = mp.search(USER, "a photo", record_access=False, min_relevance=1.0)
        assert [h.matched_modality for h in hits if h.id == stored.episode_id] == ["image"]


def test_deleting_a_user_deletes_their_media_files_only(mp: MemoryPlatform) -> None:
    mp.add_media(USER, png((1, 1, 1)), "image", "mine")
    mp.add_media("someone-else", png((2, 2, 2)), "image", "theirs")
    assert len(stored_files(mp)) == 2
    mp.delete_user(USER)
    [left] = stored_files(mp)
    assert left.read_bytes() == png((2, 2, 2))
    folder = mp.settings.media.folder
    assert folder is not None and [p.name for p in folder.iterdir()] == [left.parent.name]
