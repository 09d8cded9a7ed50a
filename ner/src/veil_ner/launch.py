"""Start a real veil-ner process on a free loopback port and wait for it (tests, tools, benchmarks).

Only loopback addresses are used; the child is ended through its own handle, never by name.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Sidecar:
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def get_json(url: str, timeout: float = 5.0) -> tuple[int, object]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - loopback only
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def start_sidecar(
    env: Mapping[str, str],
    *,
    log_path: Path,
    wait_for: str = "ready",
    timeout: float = 180.0,
) -> Sidecar:
    """Start `python -m veil_ner` with `env` (plus a free port) and wait.

    wait_for: `ready` (/readyz 200), `loaded` (/health detector_loaded, even if not ready),
    `live` (/livez 200) or `exit` (the process ends by itself; used for startup failures).
    timeout bounds the wait (a bound, not a timing: a loaded machine took over 60 s to load the
    English model and fill its embedding table).
    """
    port = free_port()
    child_env = {key: value for key, value in os.environ.items() if not key.startswith("VEIL_NER_")}
    child_env.update(env)
    child_env.setdefault("VEIL_NER_HOST", "127.0.0.1")
    child_env["VEIL_NER_PORT"] = str(port)
    log_file = log_path.open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "veil_ner"], env=child_env, stdout=log_file, stderr=subprocess.STDOUT
    )
    log_file.close()
    sidecar = Sidecar(process, port, log_path, dict(child_env))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            if wait_for == "exit":
                return sidecar
            raise RuntimeError(f"veil-ner exited with {process.returncode}:\n{sidecar.log()}")
        if wait_for != "exit":
            try:
                if wait_for == "live" and get_json(sidecar.url + "/livez", 1.0)[0] == 200:
                    return sidecar
                if wait_for == "ready" and get_json(sidecar.url + "/readyz", 1.0)[0] == 200:
                    return sidecar
                if wait_for == "loaded":
                    status, body = get_json(sidecar.url + "/health", 1.0)
                    if status == 200 and isinstance(body, dict) and body.get("detector_loaded"):
                        return sidecar
            except (OSError, ValueError):
                pass
        time.sleep(0.05)
    sidecar.stop()
    raise RuntimeError(f"veil-ner did not become {wait_for} within {timeout}s:\n{sidecar.log()}")


def send(
    url: str, method: str, path: str, headers: Mapping[str, str], body: bytes | None
) -> tuple[int, object]:
    """One HTTP request; returns (status, parsed JSON body or None)."""
    request = urllib.request.Request(url + path, data=body, method=method, headers=dict(headers))  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - loopback only
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        raw, status = error.read(), error.code
    return status, (json.loads(raw) if raw else None)


def send_case(url: str, case: Mapping[str, object], api_key: str) -> tuple[int, object]:
    """Send a contract case's request (ner/contract/README.md) to a sidecar."""
    request = case["request"]
    assert isinstance(request, dict)  # noqa: S101
    headers = {
        key: str(value).replace("{{API_KEY}}", api_key) for key, value in request.get("headers", {}).items()
    }
    body: bytes | None = None
    if "raw_body" in request:
        body = str(request["raw_body"]).encode("utf-8")
    elif "body" in request:
        body = json.dumps(request["body"]).encode("utf-8")
        headers.setdefault("Content-Type", "application/json")
    return send(url, str(request["method"]), str(request["path"]), headers, body)


def subset_matches(expected: object, actual: object) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and subset_matches(value, actual[key]) for key, value in expected.items()
        )
    return expected == actual
