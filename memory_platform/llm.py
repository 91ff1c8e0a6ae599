"""The LLM behind the optional steps, through any OpenAI-compatible endpoint.

``complete_json`` asks for a JSON object, validates it with a pydantic model and asks
again (up to ``max_attempts``) when the answer does not parse or validate. Rate limits,
timeouts and server errors become :class:`LLMUnavailableError` (retryable), so a
Celery task can back off and try later; answers that stay invalid become
:class:`ExtractionError`.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .config import Settings
from .errors import ConfigurationError, ExtractionError, MemoryPlatformError
from .jobs import stop_if_asked
from .privacy import loggable

__all__ = ["LLMClient", "LLMUnavailableError", "call_endpoint"]

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


class LLMUnavailableError(MemoryPlatformError):
    """The LLM endpoint refused or failed (rate limit, timeout, 5xx): try again later."""

    def is_retryable(self) -> bool:
        return True


class LLMClient:
    """A thin, validated JSON interface to a chat-completions endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_attempts: int = 3,
        transport_retries: int = 2,
    ) -> None:
        try:
            from openai import OpenAI
        except ImportError as exc:
            raise ConfigurationError(
                "an LLM is configured but the openai package is missing "
                "(pip install 'memory-platform[llm]')"
            ) from exc
        self.model = model
        self.max_attempts = max(1, max_attempts)
        self._client = OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=timeout,
            max_retries=transport_retries,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMClient | None:
        """The configured client, or None when no LLM is configured."""
        if not settings.llm_base_url:
            return None
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        return cls(
            settings.llm_base_url,
            settings.llm_model,
            api_key=key,
            timeout=settings.llm_timeout,
            max_attempts=settings.llm_max_retries,
        )

    def with_budget(self, timeout: float, max_attempts: int = 1) -> LLMClient:
        """A client of the same endpoint and model for calls a user waits on (a search's
        plan, where the rules can answer at once instead): it waits at most ``timeout``
        seconds for each step of a request (connecting, each read), never lets the HTTP
        client retry and asks ``max_attempts`` times at most."""
        budgeted = copy.copy(self)
        budgeted._client = self._client.with_options(timeout=timeout, max_retries=0)
        budgeted.max_attempts = max(1, max_attempts)
        return budgeted

    def complete_json(
        self, messages: Sequence[dict[str, str]], model: type[T], temperature: float = 0.0
    ) -> T:
        """Ask for a JSON object matching ``model``; re-ask on invalid answers.

        Raises:
            LLMUnavailableError: the endpoint failed after the client's own retries.
            ExtractionError: every attempt returned something that does not validate.
            JobStopped: called by a job whose user is being deleted (before asking).
        """
        conversation = list(messages)
        problems: list[str] = []
        for attempt in range(1, self.max_attempts + 1):
            stop_if_asked()  # in a job whose user is being deleted: stop, do not wait on this
            response = call_endpoint(
                "LLM",
                functools.partial(
                    self._client.chat.completions.create,
                    model=self.model,
                    messages=conversation,
                    temperature=temperature,
                    response_format={"type": "json_object"},
                ),
            )
            content = response.choices[0].message.content or ""
            try:
                data: Any = json.loads(_FENCE.sub("", content.strip()))
                return model.model_validate(data)
            except (json.JSONDecodeError, ValidationError) as exc:
                problem = (
                    str(exc).splitlines()[0]
                    if isinstance(exc, json.JSONDecodeError)
                    else _brief(exc)
                )
                problems.append(f"attempt {attempt}: {problem}")
                log.warning("LLM answer rejected (%s): %s", loggable(problem), loggable(content))
                conversation = [
                    *messages,
                    {"role": "assistant", "content": content[:4000]},
                    {
                        "role": "user",
                        "content": f"That answer was not valid ({problem}). Reply with one JSON object only, following the format exactly.",
                    },
                ]
        raise ExtractionError("the LLM gave no valid answer: " + "; ".join(problems))


def call_endpoint(what: str, request: Callable[[], R]) -> R:
    """Run one call of an OpenAI-compatible endpoint: rate limits, timeouts, connection and
    server errors become :class:`LLMUnavailableError` (retry later), any other refusal an
    :class:`ExtractionError`."""
    import openai

    try:
        return request()
    except (
        openai.RateLimitError,
        openai.APITimeoutError,
        openai.APIConnectionError,
        openai.InternalServerError,
    ) as exc:
        raise LLMUnavailableError(f"{what} endpoint unavailable: {exc}") from exc
    except openai.APIStatusError as exc:
        raise ExtractionError(f"{what} endpoint refused the request: {exc}") from exc


def _brief(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "answer"
    return f"{where}: {first['msg']}"
