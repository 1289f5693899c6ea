"""The stdio wire: newline-delimited JSON-RPC on stdin/stdout, with a per-line size limit.

Replaces the official SDK's ``stdio_server`` for ``guard serve --stdio``,
which reads a line of any length and answers a malformed one with nothing.
Here stdin is read in chunks of :data:`CHUNK_BYTES` and cut by
:class:`~guard.edge.stdio_framing.LineSplitter`, so a line over the limit is
never held whole; every line that is not a JSON-RPC message gets an error
reply (:mod:`guard.edge.stdio_framing`) and the stream goes on. Valid
messages reach the server as the SDK's ``SessionMessage``.

Stdout carries only JSON-RPC: one writer task writes every message, the
server's and the rejections, one line each. While serving, the process's
fd 0 reads the null device and fd 1 writes to stderr, so a handler, a
library or a child process can neither steal the client's input nor put
stray bytes on the wire; the wire is served from private duplicates, and
both descriptors are restored on exit. The stdin duplicate is left open: a
read abandoned at shutdown may still be blocked on it.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from guard.edge.stdio_framing import LineSplitter, Oversized, Rejected, decode_line, oversized_reply

__all__ = ["CHUNK_BYTES", "stdio_transport"]

log = logging.getLogger(__name__)

CHUNK_BYTES = 65536
"""The most bytes read from stdin at once."""

Inbound = MemoryObjectSendStream[SessionMessage]
Outbound = MemoryObjectSendStream[SessionMessage]


@asynccontextmanager
async def stdio_transport(
    max_line_bytes: int, *, stdin_fd: int | None = None, stdout_fd: int | None = None
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage], Outbound]]:
    """The server's read and write streams over stdin/stdout (or the given descriptors, left as they are).

    The read stream ends when stdin does; leaving the context stops reading
    and waits until everything written has reached the wire.
    """
    with _wire(stdin_fd, stdout_fd) as (wire_in, wire_out):
        inbound, read_stream = anyio.create_memory_object_stream[SessionMessage](0)
        write_stream, outbound = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tg:
            reading = anyio.CancelScope()
            tg.start_soon(
                _read, reading, wire_in, LineSplitter(max_line_bytes), inbound, write_stream.clone()
            )
            tg.start_soon(_write, wire_out, outbound)
            try:
                yield read_stream, write_stream
            finally:
                reading.cancel()
                write_stream.close()


@contextmanager
def _wire(stdin_fd: int | None, stdout_fd: int | None) -> Iterator[tuple[int, int]]:
    if stdin_fd is not None and stdout_fd is not None:
        yield stdin_fd, stdout_fd
        return
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        yield wire_in, wire_out
    finally:
        sys.stdout.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_out)


async def _read(
    scope: anyio.CancelScope, fd: int, lines: LineSplitter, inbound: Inbound, replies: Outbound
) -> None:
    """Feed the server every message on ``fd`` and answer every line that is not one, until end of input."""
    with scope:
        async with inbound, replies:
            try:
                while chunk := await _read_chunk(fd):
                    for line in lines.feed(chunk):
                        await _deliver(line, inbound, replies)
                for line in lines.close():
                    await _deliver(line, inbound, replies)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                log.debug("stdio: the server stopped reading")


async def _read_chunk(fd: int) -> bytes:
    try:
        return await anyio.to_thread.run_sync(os.read, fd, CHUNK_BYTES, abandon_on_cancel=True)
    except OSError as exc:
        log.warning("stdio: reading stdin failed, treating it as closed: %s", exc)
        return b""


async def _deliver(line: bytes | Oversized, inbound: Inbound, replies: Outbound) -> None:
    decoded = oversized_reply(line) if isinstance(line, Oversized) else decode_line(line)
    if decoded is None:
        return
    if isinstance(decoded, Rejected):
        log.warning("stdio: rejected a line: %s", decoded.message)
        await replies.send(SessionMessage(decoded.reply))
    else:
        await inbound.send(SessionMessage(decoded))


async def _write(fd: int, outbound: MemoryObjectReceiveStream[SessionMessage]) -> None:
    """Write each message as one line; once the wire is broken, keep draining so no sender blocks."""
    broken = False
    async with outbound:
        async for item in outbound:
            if broken:
                continue
            data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
            try:
                await anyio.to_thread.run_sync(_write_all, fd, data)
            except OSError as exc:
                log.warning("stdio: writing stdout failed, dropping further output: %s", exc)
                broken = True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
