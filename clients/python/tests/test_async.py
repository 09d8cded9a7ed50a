"""The asynchronous client against the real server: the same surface, awaited; restore_stream over
an async delta source, incremental."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from veil_client import AsyncClient, SessionError, StreamError

from .conftest import Veil

TEXT = "Email jane.doe@example.com or call +1 415 555 0134 about card 4111 1111 1111 1111."

pytestmark = pytest.mark.anyio


async def test_round_trip_and_typed_errors(veil: Veil) -> None:
    async with AsyncClient(veil.url) as client:
        transformed = await client.transform({"input": TEXT})
        restored = await client.rehydrate(
            {"output": transformed["safe_text"], "session_state": transformed["session_state"]}
        )
        assert restored["restored_text"] == TEXT
        assert (await client.health())["status"] in ("healthy", "degraded")
        frames = [frame async for frame in client.transform_stream({"input": TEXT})]
        assert frames[-1]["complete"] is True
        with pytest.raises(SessionError):
            await client.rehydrate({"output": "x", "session_state": "v1.nope.AAAA"})


async def test_restore_stream_is_incremental(veil: Veil) -> None:
    long = f"{TEXT} " + "Nothing to see here. " * 30
    async with AsyncClient(veil.url) as client:
        transformed = await client.transform({"input": long})
        first_piece = asyncio.Event()

        async def model() -> AsyncIterator[str]:
            half = len(transformed["safe_text"]) // 2
            for char in transformed["safe_text"][:half]:
                yield char
            await asyncio.wait_for(first_piece.wait(), timeout=20)
            for char in transformed["safe_text"][half:]:
                yield char

        restored = ""
        async for piece in client.restore_stream(model(), {"session_state": transformed["session_state"]}):
            restored += piece
            first_piece.set()
        assert restored == long


async def test_restore_stream_error_frame(veil: Veil) -> None:
    async with AsyncClient(veil.url) as client:
        transformed = await client.transform({"input": TEXT})
        started = asyncio.Event()

        async def model() -> AsyncIterator[str]:
            yield "Plain words first. " * 20
            # Erase only once restored text came back (the stream has started).
            await asyncio.wait_for(started.wait(), timeout=20)
            await client.delete_session({"session_state": transformed["session_state"]})
            yield transformed["safe_text"]

        async def drain() -> None:
            async for _piece in client.restore_stream(model(), {"session_state": transformed["session_state"]}):
                started.set()

        with pytest.raises(StreamError, match="session"):
            await drain()
