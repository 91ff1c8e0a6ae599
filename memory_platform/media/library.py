"""Adding media memories and finding them by vector.

A media memory is an episode whose text is its description (the caller's, else the
encoder's) and whose ``metadata["media"]`` holds the reference: modality, type, content
hash, size and file. The bytes stay in :class:`MediaFiles`, never in the graph. When the
modality's encoder embeds, the medium's vector is stored beside the episode and a text
query is matched against it (cross-modal search).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, tzinfo
from typing import Any

from pydantic import BaseModel

from ..builder import episode_time_text
from ..errors import InvalidInputError
from ..models import MAX_TEXT_CHARS, SEARCHABLE_KEY, Episode
from ..retrieval.results import SearchResult
from ..store import GraphStore
from .encoders import MediaEncoder
from .files import SUPPORTED, MediaFiles, read_media, sniff_media_type

__all__ = ["MediaHit", "MediaLibrary", "MediaMemory"]

MODALITIES = ("image", "audio")
_PAGE = 500


class MediaMemory(BaseModel):
    """What :meth:`MediaLibrary.add` stored."""

    episode_id: str
    modality: str
    mime: str
    sha256: str
    size: int
    file: str
    description: str
    described_by: str
    vector_model: str | None = None


class MediaHit(BaseModel):
    """An episode whose media vector is close to a query."""

    episode_id: str
    modality: str
    similarity: float


class MediaLibrary:
    """Media memories of a store.

    Args:
        store: the graph store.
        files: where the bytes go.
        encoders: per modality; a modality without one needs the caller's description.
        write_episode: stores one episode given as :meth:`MemoryPlatform.add_episode`'s
            keyword dict and returns its id (so media follow the same rules as episodes).
        max_bytes: larger media are refused.
        min_similarity: a media vector at least this close to a query is a match.
    """

    def __init__(
        self,
        store: GraphStore,
        files: MediaFiles,
        encoders: Mapping[str, MediaEncoder],
        write_episode: Callable[[str, dict[str, Any]], str],
        max_bytes: int,
        min_similarity: float,
    ) -> None:
        self._store = store
        self.files = files
        self.encoders = dict(encoders)
        self._write_episode = write_episode
        self._max_bytes = max_bytes
        self.min_similarity = min_similarity

    def add(
        self,
        user_id: str,
        source: bytes | str | os.PathLike[str],
        modality: str,
        *,
        description: str | None = None,
        timestamp: datetime | str | None = None,
        session_id: str | None = None,
        sensitive: bool | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> MediaMemory:
        """Store a medium and its description; everything is checked (and described)
        before anything is written, and a failed write leaves no file behind.

        Raises:
            InvalidInputError: unknown modality, unsupported or mismatched file type,
                oversize, unreadable or empty media, or no description to be had.
        """
        if modality not in MODALITIES:
            raise InvalidInputError(
                f"{modality!r} is not a modality; use 'image' or 'audio'", "modality"
            )
        if description is not None:
            if not isinstance(description, str):
                raise InvalidInputError("must be a string", "description")
            description = description.strip() or None
            if description is not None and len(description) > MAX_TEXT_CHARS:
                raise InvalidInputError(
                    f"is longer than {MAX_TEXT_CHARS} characters", "description"
                )
        data = read_media(source, self._max_bytes)
        media_type = sniff_media_type(data)
        if media_type is None:
            kinds = ", ".join(t.mime for t in SUPPORTED)
            raise InvalidInputError(
                f"not a supported image or audio file (supported: {kinds})", "media"
            )
        if media_type.modality != modality:
            raise InvalidInputError(
                f"the file is {media_type.mime}, not {modality}; pass modality="
                f"{media_type.modality!r} or another file",
                "modality",
            )
        encoder = self.encoders.get(modality)
        generated = encoder.describe(data, media_type) if encoder is not None else None
        searchable = (metadata or {}).get(SEARCHABLE_KEY) is not False  # else no vector
        vector = encoder.embed(data, media_type) if encoder is not None and searchable else None
        text = description or generated
        if not text:
            raise InvalidInputError(
                f"no description for this {modality}: pass description=..., or configure an "
                f"encoder that describes it (media.{modality}_encoder)",
                "description",
            )
        sha256, path, new_file = self.files.put(user_id, data, media_type)
        reference: dict[str, Any] = {
            "modality": modality,
            "mime": media_type.mime,
            "sha256": sha256,
            "size": len(data),
            "file": str(path),
            "described_by": "caller" if description else (encoder.model if encoder else "caller"),
        }
        if description and generated:
            reference["generated_description"] = generated
        vector_model = encoder.model if encoder is not None and vector is not None else None
        if vector_model:
            reference["vector_model"] = vector_model
        extra = dict(metadata or {})
        if sensitive is not None:
            extra["sensitive"] = sensitive
        episode_id: str | None = None
        try:
            episode_id = self._write_episode(
                user_id,
                {
                    "text": text,
                    "timestamp": timestamp,
                    "session_id": session_id,
                    "metadata": {**extra, "media": reference},
                },
            )
            if vector is not None and vector_model:
                self._store.set_media_vectors(user_id, modality, vector_model, {episode_id: vector})
        except Exception:
            if episode_id is not None:
                self._store.delete_episodes(user_id, [episode_id])
            if new_file:
                self.files.remove(user_id, sha256)
            raise
        return MediaMemory(
            episode_id=episode_id,
            modality=modality,
            mime=media_type.mime,
            sha256=sha256,
            size=len(data),
            file=str(path),
            description=text,
            described_by=reference["described_by"],
            vector_model=vector_model,
        )

    @property
    def embeds_text(self) -> bool:
        """Whether any encoder can match a text query against media vectors."""
        return any(e.embeds for e in self.encoders.values())

    def search(self, user_id: str, query: str, k: int) -> list[MediaHit]:
        """Media whose vector is at least ``min_similarity`` close to the query's, for
        every modality whose encoder embeds text, best first."""
        hits: list[MediaHit] = []
        for modality, encoder in self.encoders.items():
            if not encoder.embeds:
                continue
            vector = encoder.embed_text(query)
            if vector is None:
                continue
            for hit in self._store.media_vector_search(user_id, modality, encoder.model, vector, k):
                if hit.score >= self.min_similarity:
                    hits.append(
                        MediaHit(episode_id=hit.ref_id, modality=modality, similarity=hit.score)
                    )
        return sorted(hits, key=lambda h: (-h.similarity, h.episode_id))[:k]

    def relevance(self, similarity: float) -> float:
        """A vector match's relevance: [min_similarity, 1] mapped onto [0.5, 1]."""
        span = max(1.0 - self.min_similarity, 1e-6)
        return min(1.0, max(0.5, 0.5 + 0.5 * (similarity - self.min_similarity) / span))

    def release(self, user_id: str, hashes: list[str]) -> int:
        """Delete the files of these hashes that no remaining episode of the user refers
        to; returns how many files were deleted."""
        wanted = set(hashes)
        used: set[str] = set()
        offset = 0
        while wanted - used and (page := self._store.list_episodes(user_id, _PAGE, offset)):
            offset += len(page)
            for episode in page:
                media = episode.metadata.get("media")
                if isinstance(media, dict) and media.get("sha256") in wanted:
                    used.add(str(media["sha256"]))
        return sum(self.files.remove(user_id, sha) for sha in wanted - used)

    def augment(
        self,
        user_id: str,
        query: str,
        results: list[SearchResult],
        max_results: int,
        admits: Callable[[Episode], bool],
        zone: tzinfo = UTC,
    ) -> list[SearchResult]:
        """``results`` with the media that match the query by vector merged in among the
        direct matches by relevance (a medium also found by its description is marked
        as matched by its modality too)."""
        hits = self.search(user_id, query, max_results)
        if not hits:
            return results
        by_id = {r.id: r for r in results}
        episodes = {
            e.id: e for e in self._store.get_episodes(user_id, [h.episode_id for h in hits])
        }
        direct = [r for r in results if r.layer == "direct"]
        related = [r for r in results if r.layer == "related"]
        for hit in hits:
            relevance = self.relevance(hit.similarity)
            known = by_id.get(hit.episode_id)
            if known is not None:
                known.matched_modality = hit.modality
                known.relevance = max(known.relevance, relevance)
                continue
            episode = episodes.get(hit.episode_id)
            if episode is None or not admits(episode):
                continue
            result = episode_result(episode, relevance, hit.modality, zone)
            position = next(
                (i for i, r in enumerate(direct) if r.relevance < relevance), len(direct)
            )
            direct.insert(position, result)
        direct = direct[:max_results]
        return direct + related[: max_results - len(direct)]


def episode_result(
    episode: Episode, relevance: float, matched_modality: str, zone: tzinfo = UTC
) -> SearchResult:
    """A direct search result for an episode found through its media vector; its time on
    the clock of ``zone`` (the search's)."""
    return SearchResult(
        id=episode.id,
        kind="episode",
        text=episode.text,
        score=relevance,
        relevance=relevance,
        layer="direct",
        metadata=episode.metadata,
        time=episode_time_text(episode, zone),
        event_time=episode.timestamp,
        speaker=episode.speaker,
        session_id=episode.session_id,
        sensitive=episode.sensitive,
        matched_modality=matched_modality,
    )
