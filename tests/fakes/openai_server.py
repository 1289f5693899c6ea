"""A fake OpenAI-compatible chat-completions server on loopback, for tests that must not call a model.

It is a real HTTP server (Starlette under uvicorn, in a thread, on a socket
bound before the thread starts, so it accepts at once) that answers
``POST /v1/chat/completions`` from a script and records every request::

    with FakeOpenAIServer([FakeReply("YES")]) as server:
        client = OpenAIChat(server.base_url, "fake-model")
        ...
        server.requests[0].body["messages"]

A script entry is a :class:`FakeReply`, a plain string (a normal text reply)
or a function of the request body returning either. A reply can carry tool
calls (for tool-calling agents), reasoning text, a ``finish_reason``, usage
figures, or an HTTP error status with headers (``Retry-After``). With the
script used up, the server answers 500 and says so. ``GET /v1/models`` lists
the model. Streaming is not supported (400).

In a test module or conftest::

    from tests.fakes.openai_server import fake_openai  # noqa: F401  (the fixture)

    def test_x(fake_openai: FakeOpenAIServer) -> None:
        fake_openai.script("NO")
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

__all__ = ["FakeOpenAIServer", "FakeReply", "RecordedRequest", "fake_openai"]


@dataclass
class FakeReply:
    """One scripted answer.

    ``tool_calls`` items are ``{"name": ..., "arguments": {...} or "json text", "id": optional}``.
    ``finish_reason`` defaults to ``tool_calls`` when there are tool calls, else ``stop``.
    ``status`` other than 200 sends ``error`` (or a default error body) with ``headers``.
    """

    content: str | None = "OK"
    tool_calls: list[Mapping[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    reasoning: str | None = None
    reasoning_field: str = "reasoning_content"
    usage: Mapping[str, Any] | None = None
    status: int = 200
    error: Mapping[str, Any] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]
    body: Any


Script = FakeReply | str | Callable[[Any], "FakeReply | str"]


class FakeOpenAIServer:
    def __init__(
        self, replies: Iterable[Script] = (), *, model: str = "fake-model", api_key: str | None = None
    ) -> None:
        self.model = model
        self.api_key = api_key
        self.requests: list[RecordedRequest] = []
        self._script: list[Script] = list(replies)
        self._lock = threading.Lock()
        self._counter = 0
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The URL to give a client (it ends in ``/v1``)."""
        if self._socket is None:
            raise RuntimeError("the fake server is not started")
        host, port = self._socket.getsockname()[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *replies: Script) -> None:
        with self._lock:
            self._script.extend(replies)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def start(self) -> FakeOpenAIServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._completions, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )
        config = uvicorn.Config(
            app, lifespan="off", log_level="error", access_log=False, ws="none", http="h11"
        )
        self._server = uvicorn.Server(config)
        self._socket = sock
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            if self._thread.is_alive():
                raise RuntimeError("the fake OpenAI server did not stop")
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def _models(self, request: Request) -> JSONResponse:
        self._record(request, None)
        return JSONResponse({"object": "list", "data": [{"id": self.model, "object": "model"}]})

    async def _completions(self, request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            body = None
        self._record(request, body)
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "invalid api key", "authentication_error")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "the body needs a messages list", "invalid_request_error")
        if body.get("stream"):
            return _error(400, "the fake server does not stream", "invalid_request_error")
        with self._lock:
            entry = self._script.pop(0) if self._script else None
            self._counter += 1
            number = self._counter
        if entry is None:
            return _error(500, f"no scripted reply left for request {number}", "server_error")
        reply = entry(body) if callable(entry) else entry
        if isinstance(reply, str):
            reply = FakeReply(reply)
        if reply.status != 200:
            payload = dict(
                reply.error or {"error": {"message": f"scripted HTTP {reply.status}", "type": "error"}}
            )
            return JSONResponse(payload, status_code=reply.status, headers=dict(reply.headers))
        return JSONResponse(self._completion(reply, body, number), headers=dict(reply.headers))

    def _completion(self, reply: FakeReply, body: Mapping[str, Any], number: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.reasoning is not None:
            message[reply.reasoning_field] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": str(call.get("id") or f"call_{number}_{index}"),
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": call["arguments"]
                        if isinstance(call.get("arguments"), str)
                        else json.dumps(call.get("arguments") or {}),
                    },
                }
                for index, call in enumerate(reply.tool_calls)
            ]
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        completion_tokens = len((reply.content or "").split()) + len((reply.reasoning or "").split())
        usage = dict(
            reply.usage
            or {
                "prompt_tokens": sum(len(str(m.get("content") or "").split()) for m in body["messages"]),
                "completion_tokens": completion_tokens,
                "total_tokens": completion_tokens,
            }
        )
        return {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion",
            "created": 1_759_323_600,
            "model": body.get("model") or self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }

    def _record(self, request: Request, body: Any) -> None:
        recorded = RecordedRequest(request.method, request.url.path, dict(request.headers), body)
        with self._lock:
            self.requests.append(recorded)


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A started :class:`FakeOpenAIServer` with an empty script."""
    with FakeOpenAIServer() as server:
        yield server
