"""API keys, each bound to the user ids it may read and write.

A request names the user in its path; the key's patterns (``fnmatch`` style) must match
that user, or the request is refused before the platform is touched.
"""

from __future__ import annotations

import hmac
from fnmatch import fnmatchcase

from ..config import ApiSettings
from ..errors import ConfigurationError


class KeyRing:
    """The configured keys; checks a presented key against a user id."""

    def __init__(self, config: ApiSettings) -> None:
        if not config.keys and not config.allow_anonymous:
            raise ConfigurationError(
                "api.keys (MEMORY_API__KEYS) is empty: configure keys, e.g. "
                'MEMORY_API__KEYS=\'{"a-long-secret": ["alice"]}\', or set '
                "MEMORY_API__ALLOW_ANONYMOUS=true for local development"
            )
        self._keys = dict(config.keys)
        self.anonymous = config.allow_anonymous and not config.keys

    def patterns(self, presented: str | None) -> list[str] | None:
        """The user patterns of a key; None for a missing or unknown key."""
        if self.anonymous:
            return ["*"]
        if not presented:
            return None
        found: list[str] | None = None
        for key, patterns in self._keys.items():  # compare every key: constant time
            if hmac.compare_digest(key.encode(), presented.encode()):
                found = patterns
        return found

    @staticmethod
    def allows(patterns: list[str], user_id: str) -> bool:
        """Whether any of the key's patterns matches the user id."""
        return any(fnmatchcase(user_id, pattern) for pattern in patterns)
