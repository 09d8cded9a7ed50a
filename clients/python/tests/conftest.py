"""Fixtures: the real ``veil serve`` process (the built server, server/dist), the real NER sidecar
when ner/.venv exists, and a local fake OpenAI-compatible upstream for the proxy tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
VEIL_BIN = ROOT / "server" / "bin" / "veil.js"
NER_PYTHON = ROOT / "ner" / ".venv" / "bin" / "python"


@dataclass
class Veil:
    """A running server: its URL and the log lines it wrote."""

    url: str
    process: subprocess.Popen[str]
    logs: list[str] = field(default_factory=list)


def start_veil(env: dict[str, str] | None = None) -> Veil:
    """Start ``veil serve`` on a free loopback port and wait until it listens."""
    process = subprocess.Popen(
        ["node", str(VEIL_BIN), "serve", "--host", "127.0.0.1", "--port", "0"],
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", ""), "VEIL_LOG_FORMAT": "json", "VEIL_SERVER__WORKERS": "1", **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    veil = Veil(url="", process=process)
    deadline = time.monotonic() + 30
    assert process.stdout is not None
    for line in process.stdout:
        veil.logs.append(line)
        if "veil server listening" in line:
            veil.url = json.loads(line)["url"]
            break
        if time.monotonic() > deadline:
            break
    if not veil.url:
        process.kill()
        raise RuntimeError("veil did not start:\n" + "".join(veil.logs))
    # Keep collecting the log, so tests can prove no value was logged.
    threading.Thread(target=lambda: veil.logs.extend(process.stdout or []), daemon=True).start()
    return veil


def stop_veil(veil: Veil) -> None:
    """Stop the server and close its log pipe (the collector thread ends at its EOF)."""
    stop(veil.process)
    if veil.process.stdout is not None:
        veil.process.stdout.close()


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def veil() -> Iterator[Veil]:
    server = start_veil()
    yield server
    stop_veil(server)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Sidecar:
    url: str
    key: str


@pytest.fixture(scope="session")
def sidecar() -> Iterator[Sidecar | None]:
    """The NER sidecar, or None when ner/.venv was not built (then names cannot be detected)."""
    if not NER_PYTHON.exists():
        yield None
        return
    port = free_port()
    key = "python-client-tests" * 2
    process = subprocess.Popen(
        [str(NER_PYTHON), "-m", "veil_ner"],
        cwd=ROOT / "ner",
        env={"PATH": os.environ.get("PATH", ""), "VEIL_NER_PORT": str(port), "VEIL_NER_API_KEY": key},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:
            time.sleep(0.25)
    else:
        process.kill()
        raise RuntimeError("the NER sidecar did not become ready")
    yield Sidecar(url=url, key=key)
    stop(process)  # type: ignore[arg-type]


class FakeUpstream:
    """An OpenAI-compatible stand-in: echoes the last user message, streamed one character per
    chunk (every token split at every position), and records every request body."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.reply: dict[str, object] = {}
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: object) -> None:
                return

            def do_POST(self) -> None:
                text = self.rfile.read(int(self.headers.get("content-length", "0"))).decode("utf-8")
                upstream.requests.append(text)
                body = json.loads(text)
                if "status" in upstream.reply:
                    self._send(
                        int(upstream.reply["status"]),
                        json.dumps(upstream.reply.get("error_body", {})),
                        "application/json",
                    )
                    return
                echo = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")
                if not body.get("stream"):
                    message = {"role": "assistant", "content": echo, "refusal": None}
                    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}
                    completion = {
                        "id": "c",
                        "object": "chat.completion",
                        "created": 1,
                        "model": "fake",
                        "choices": [choice],
                    }
                    self._send(200, json.dumps(completion), "application/json")
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for delta in [{"role": "assistant", "content": ""}, *({"content": char} for char in echo), {}]:
                    finish = "stop" if delta == {} else None
                    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "fake"}
                    chunk["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

            def _send(self, status: int, text: str, kind: str) -> None:
                data = text.encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def upstream() -> Iterator[FakeUpstream]:
    fake = FakeUpstream()
    yield fake
    fake.close()
