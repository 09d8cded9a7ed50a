"""Server-sent events of Veil's streaming routes: ``data: <json>`` frames separated by blank lines.

The terminal error frame ``{error, complete: true}`` becomes a StreamError.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from ._errors import StreamError


class SseLines:
    """Collects the data lines of one event; ``line`` returns the event's data when it ends."""

    def __init__(self) -> None:
        self._data: list[str] = []

    def line(self, line: str) -> str | None:
        line = line.rstrip("\r\n")
        if line == "":
            if not self._data:
                return None
            data = "\n".join(self._data)
            self._data = []
            return data
        if line.startswith("data:"):
            self._data.append(line[6:] if line.startswith("data: ") else line[5:])
        return None


def iter_sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The data payloads of an event stream read line by line."""
    events = SseLines()
    for line in lines:
        data = events.line(line)
        if data is not None:
            yield data


async def aiter_sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """The same, for an asynchronous line source."""
    events = SseLines()
    async for line in lines:
        data = events.line(line)
        if data is not None:
            yield data


def parse_frame(data: str, request_id: str | None) -> dict[str, Any]:
    """One frame of a Veil stream, or the error frame raised as StreamError."""
    frame = json.loads(data)
    if not isinstance(frame, dict):
        raise StreamError(
            "a stream frame is not an object", code="VEIL_STREAM_FAILED", status=200, request_id=request_id
        )
    if isinstance(frame.get("error"), str) and frame.get("complete") is True:
        raise StreamError(frame["error"], code="VEIL_STREAM_FAILED", status=200, request_id=request_id)
    return frame
