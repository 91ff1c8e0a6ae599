"""A small OpenAI-compatible HTTP server on 127.0.0.1 for tests.

The LLM cannot be reached from the test machines, so chat completions are scripted:
queue replies (a status code and a body, or a message to wrap) and the real ``openai``
client receives them over HTTP. ``/v1/embeddings`` answers with a real embedder's
vectors, so embeddings stay real. Every request is recorded for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class OpenAIStub:
    """Start with ``with OpenAIStub(...) as stub:``; ``stub.base_url`` is the ``/v1`` URL."""

    def __init__(
        self, embed: Callable[[Sequence[str]], Any] | None = None, model: str = "stub-model"
    ) -> None:
        self._embed = embed
        self.model = model
        self.replies: deque[tuple[int, Any]] = deque()
        self.transcripts: deque[str] = deque()
        self.embedding_failures = 0  # the next this many /embeddings requests answer 503
        self.max_input_bytes: int | None = None  # a longer input is refused, as OpenAI does
        self.requests: list[dict[str, Any]] = []
        self.holding = threading.Event()  # set when a held reply's request has come in
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reply(
        self,
        content: str | None = None,
        *,
        tool_calls: list[dict[str, Any]] | None = None,
        delay: float = 0.0,
        hold: threading.Event | None = None,
    ) -> None:
        """Queue a successful chat completion (sent after ``delay`` seconds, or once
        ``hold`` is set: :attr:`holding` tells the test the request is being held)."""
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        self.replies.append(
            (
                200,
                {
                    "_delay": delay,
                    "_hold": hold,
                    "id": f"chatcmpl-{len(self.replies)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": self.model,
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if tool_calls else "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                },
            )
        )

    def transcribe(self, text: str) -> None:
        """Queue the text of an ``/audio/transcriptions`` answer."""
        self.transcripts.append(text)

    def chat_requests(self) -> int:
        """How many chat completions were asked for."""
        return sum(1 for r in self.requests if r["path"].endswith("/chat/completions"))

    def fail(self, status: int, message: str = "scripted failure") -> None:
        """Queue an error answer (429, 500, ...)."""
        self.replies.append(
            (status, {"error": {"message": message, "type": "stub_error", "code": status}})
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                return

            def _send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("Retry-After", "0")
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client is gone (a killed worker): nothing to answer

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if self.path.endswith("/audio/transcriptions"):  # multipart: keep the bytes
                    stub.requests.append({"path": self.path, "body": raw})
                    if not stub.transcripts:
                        self._send(500, {"error": {"message": "no scripted transcript left"}})
                        return
                    self._send(200, {"text": stub.transcripts.popleft()})
                    return
                payload = json.loads(raw or b"{}")
                stub.requests.append({"path": self.path, "body": payload})
                if self.path.endswith("/embeddings"):
                    if stub.embedding_failures > 0:
                        stub.embedding_failures -= 1
                        self._send(503, {"error": {"message": "scripted outage"}})
                        return
                    if stub._embed is None:
                        self._send(404, {"error": {"message": "no embedder"}})
                        return
                    texts = (
                        payload["input"]
                        if isinstance(payload["input"], list)
                        else [payload["input"]]
                    )
                    limit = stub.max_input_bytes
                    if limit is not None and any(len(t.encode()) > limit for t in texts):
                        message = "This model's maximum context length is exceeded"
                        self._send(400, {"error": {"message": message}})
                        return
                    vectors = stub._embed(texts)
                    self._send(
                        200,
                        {
                            "object": "list",
                            "model": payload.get("model", stub.model),
                            "data": [
                                {
                                    "object": "embedding",
                                    "index": i,
                                    "embedding": [float(x) for x in v],
                                }
                                for i, v in enumerate(vectors)
                            ],
                            "usage": {"prompt_tokens": 1, "total_tokens": 1},
                        },
                    )
                    return
                if self.path.endswith("/chat/completions"):
                    if not stub.replies:
                        self._send(
                            500, {"error": {"message": "the stub has no scripted reply left"}}
                        )
                        return
                    status, body = stub.replies.popleft()
                    delay = body.pop("_delay", 0.0) if isinstance(body, dict) else 0.0
                    hold = body.pop("_hold", None) if isinstance(body, dict) else None
                    if delay:
                        time.sleep(delay)
                    if hold is not None:
                        stub.holding.set()
                        hold.wait(600)  # a guard against a test that never lets go
                    self._send(status, body)
                    return
                self._send(404, {"error": {"message": f"unknown path {self.path}"}})

        return Handler
