"""A full-duplex HTTP/1.1 POST for the incremental rehydrate (``/v1/rehydrate/stream`` with an
ndjson body): the request body is sent chunk by chunk as a model produces deltas while the
restored frames are read back at the same time.

httpx (like most HTTP clients) sends the whole request body before it reads the answer, which
would hold every restored piece until the model finished; this one call therefore speaks
HTTP/1.1 itself over asyncio streams (TLS included, one event-loop thread, so reading and writing
never race on a TLS object). The synchronous form runs the same coroutine on a private event
loop in a worker thread and hands lines across through a queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import ssl
import threading
import urllib.parse
from collections.abc import AsyncIterator, Iterator, Mapping

from ._errors import ConnectionError, error_from_answer

_MAX_HEADER_BYTES = 64 * 1024
_MAX_ERROR_BODY = 1024 * 1024


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    status_line = await reader.readline()
    parts = status_line.decode("latin-1").split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise ConnectionError("Veil answered something that is not HTTP", code="VEIL_CONNECTION_FAILED", status=0)
    headers: dict[str, str] = {}
    total = len(status_line)
    while True:
        line = await reader.readline()
        total += len(line)
        if total > _MAX_HEADER_BYTES:
            raise ConnectionError("the answer's headers are too long", code="VEIL_CONNECTION_FAILED", status=0)
        text = line.decode("latin-1").rstrip("\r\n")
        if text == "":
            return int(parts[1]), headers
        name, _, value = text.partition(":")
        headers[name.strip().lower()] = value.strip()


async def _body_pieces(reader: asyncio.StreamReader, headers: Mapping[str, str]) -> AsyncIterator[bytes]:
    """The answer's body as it arrives (chunked, sized, or until the connection closes)."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size_line = await reader.readline()
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                return
            piece = await reader.readexactly(size)
            await reader.readexactly(2)
            yield piece
    elif "content-length" in headers:
        remaining = int(headers["content-length"])
        while remaining > 0:
            piece = await reader.read(min(remaining, 65536))
            if not piece:
                return
            remaining -= len(piece)
            yield piece
    else:
        while piece := await reader.read(65536):
            yield piece


async def stream_lines(
    url: str,
    headers: Mapping[str, str],
    body: AsyncIterator[bytes],
    *,
    ssl_context: ssl.SSLContext | None = None,
    connect_timeout: float | None = None,
) -> AsyncIterator[str]:
    """POST ``body`` (chunked) to ``url`` and yield the answer's lines as they arrive.

    An error answer raises its typed VeilError; a failing ``body`` source aborts the call and
    its exception is raised here.
    """
    target = urllib.parse.urlsplit(url)
    https = target.scheme == "https"
    host = target.hostname or "localhost"
    port = target.port or (443 if https else 80)
    path = (target.path or "/") + (f"?{target.query}" if target.query else "")
    context = (ssl_context or ssl.create_default_context()) if https else None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=context, server_hostname=host if https else None),
            connect_timeout,
        )
    except (OSError, TimeoutError) as error:
        raise ConnectionError("the connection to Veil failed", code="VEIL_CONNECTION_FAILED", status=0) from error
    head = [f"POST {path} HTTP/1.1", f"Host: {target.netloc}", "Transfer-Encoding: chunked", "Connection: close"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))

    async def pump() -> None:
        async for line in body:
            writer.write(b"%x\r\n%s\r\n" % (len(line), line))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    sender = asyncio.create_task(pump())
    try:
        status, answer_headers = await _read_head(reader)
        if status >= 400:
            # Veil answers an error before the stream starts (bad parameters, an expired session).
            sender.cancel()
            data = bytearray()
            async for piece in _body_pieces(reader, answer_headers):
                data += piece
                if len(data) > _MAX_ERROR_BODY:
                    break
            raise error_from_answer(status, bytes(data), answer_headers)
        buffer = b""
        async for piece in _body_pieces(reader, answer_headers):
            buffer += piece
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                yield line.decode("utf-8")
            if sender.done() and sender.exception() is not None:
                raise sender.exception()  # type: ignore[misc]
        if buffer:
            yield buffer.decode("utf-8")
        if sender.done() and not sender.cancelled() and sender.exception() is not None:
            raise sender.exception()  # type: ignore[misc]
    finally:
        if not sender.done():
            sender.cancel()
        with contextlib.suppress(BaseException):
            await sender
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


_DONE = object()


def stream_lines_sync(
    url: str,
    headers: Mapping[str, str],
    body: Iterator[bytes],
    *,
    ssl_context: ssl.SSLContext | None = None,
    connect_timeout: float | None = None,
) -> Iterator[str]:
    """``stream_lines`` for synchronous callers: the call runs on a private event loop in a
    worker thread; ``body`` is iterated on another worker thread, lines come back as they arrive.
    """
    lines: queue.Queue[object] = queue.Queue()
    loop = asyncio.new_event_loop()
    task_box: list[asyncio.Task[None]] = []

    async def source() -> AsyncIterator[bytes]:
        while True:
            item = await asyncio.to_thread(next, body, _DONE)
            if item is _DONE:
                return
            yield item  # type: ignore[misc]

    async def run() -> None:
        try:
            async for line in stream_lines(
                url, headers, source(), ssl_context=ssl_context, connect_timeout=connect_timeout
            ):
                lines.put(line)
        except BaseException as error:  # handed to the caller's thread
            lines.put(error)
            return
        lines.put(_DONE)

    def thread_main() -> None:
        asyncio.set_event_loop(loop)
        task_box.append(loop.create_task(run()))
        try:
            loop.run_until_complete(task_box[0])
        finally:
            loop.close()

    worker = threading.Thread(target=thread_main, name="veil-restore-stream", daemon=True)
    worker.start()
    try:
        while True:
            item = lines.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item  # type: ignore[misc]
    finally:
        # The caller stopped early (or failed): cancel the call and wait for the thread.
        if worker.is_alive() and task_box:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task_box[0].cancel)
        worker.join(timeout=5)
