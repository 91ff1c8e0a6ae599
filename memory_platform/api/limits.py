"""A request-body size limit enforced before the body is read into memory.

A declared ``Content-Length`` over the limit is answered 413 at once; a chunked body is
counted as it arrives and cut off at the limit, so a client can never make the server
hold more than the limit per request.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["BodySizeLimit"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodySizeLimit:
    """ASGI middleware: bodies over ``limit`` bytes (``import_limit`` on ``/import``,
    ``media_limit`` on ``/media``) get 413."""

    def __init__(
        self, app: ASGIApp, limit: int, import_limit: int, media_limit: int | None = None
    ) -> None:
        self.app = app
        self.limit = limit
        self.import_limit = import_limit
        self.media_limit = limit if media_limit is None else media_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        limit = (
            self.import_limit
            if path.endswith("/import")
            else self.media_limit
            if path.endswith("/media")
            else self.limit
        )
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _refuse(send, limit)
            return
        seen = 0
        too_large = False

        async def counted_receive() -> Message:
            # Past the limit the app is told the body ended (nothing more is buffered)
            # and whatever it answers is replaced by the 413 below.
            nonlocal seen, too_large
            if too_large:
                return {"type": "http.request", "body": b"", "more_body": False}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    too_large = True
                    return {"type": "http.request", "body": b"", "more_body": False}
            return message

        refused = False

        async def guarded_send(message: Message) -> None:
            nonlocal refused
            if too_large:
                if not refused:
                    refused = True
                    await _refuse(send, limit)
                return
            await send(message)

        await self.app(scope, counted_receive, guarded_send)


async def _refuse(send: Send, limit: int) -> None:
    body = json.dumps(
        {"error": f"the request body is larger than {limit} bytes", "field": "body"}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
