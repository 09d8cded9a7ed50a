"""Process entry point: `python -m veil_ner` (or the `veil-ner` script).

Reads the environment, runs the backend's preflight checks (exit 2 with a clear message when the
configuration or a package/model is missing), binds the port, loads models in the background and
serves until SIGINT/SIGTERM. A model that cannot load for the default language stops the process
with exit 3. Logs are JSON lines on stderr and never contain request text.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from typing import Any

from . import SERVICE_NAME, __version__
from .config import ConfigError, Settings, is_loopback, load_settings

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = (
                    value if isinstance(value, str | int | float | bool) or value is None else str(value)
                )
        return json.dumps(entry, ensure_ascii=True)


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(noisy).handlers[:] = []
        logging.getLogger(noisy).propagate = True
    logging.getLogger("uvicorn.access").disabled = True


def fail(message: str, code: int) -> int:
    logging.getLogger("veil_ner").error("startup failed", extra={"reason": message})
    print(f"veil-ner: {message}", file=sys.stderr)
    return code


OVERLAP_SWITCH_INTERVAL = 0.0005  # seconds (`VEIL_NER_OVERLAP`)


def apply_switch_interval(settings: Settings) -> None:
    """With `VEIL_NER_OVERLAP=1` (session 16) the text's recognizers run on a second thread beside
    the model (detector.py); the model's thread then gets the GIL back after its products within
    this interval, not Python's default 5 ms, which cost more than the overlap saved. Off (the
    default since session 17), Python's interval stays."""
    if settings.overlap:
        sys.setswitchinterval(OVERLAP_SWITCH_INTERVAL)


def main() -> int:
    configure_logging(os.environ.get("VEIL_NER_LOG_LEVEL", "info").strip().lower() or "info")
    log = logging.getLogger("veil_ner")
    try:
        settings: Settings = load_settings(os.environ)
    except ConfigError as error:
        return fail("; ".join(error.problems), 2)
    configure_logging(settings.log_level)
    for warning in settings.warnings:
        log.warning(warning)

    from .backends import BackendError, create_backend  # noqa: PLC0415 - after config is valid

    try:
        backend = create_backend(settings)
        backend.preflight()
    except BackendError as error:
        return fail(str(error), 2)

    if settings.api_key is None and settings.allow_insecure:
        log.warning(
            "INSECURE: VEIL_NER_ALLOW_INSECURE=1 and no VEIL_NER_API_KEY: detect calls need no credential"
            + ("" if is_loopback(settings.host) else f" and the port is open on {settings.host}")
        )
    elif settings.api_key is None:
        log.warning("no VEIL_NER_API_KEY: every detect call answers 503 (fail closed)")

    import uvicorn  # noqa: PLC0415

    from .app import create_app  # noqa: PLC0415
    from .detector import Detector  # noqa: PLC0415

    exit_code = 0
    server: uvicorn.Server | None = None

    def on_fatal(message: str) -> None:
        nonlocal exit_code
        exit_code = 3
        print(f"veil-ner: {message}", file=sys.stderr)
        if server is not None:
            server.should_exit = True

    apply_switch_interval(settings)
    detector = Detector(backend, settings.languages, settings.default_language, overlap=settings.overlap)
    app = create_app(settings, detector, on_fatal=on_fatal)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,
        access_log=False,
        server_header=False,
        lifespan="on",
        timeout_keep_alive=30,
        timeout_graceful_shutdown=10,
    )
    server = uvicorn.Server(config)
    log.info(
        "starting",
        extra={
            "service": SERVICE_NAME,
            "version": __version__,
            "host": settings.host,
            "port": settings.port,
            "backend": settings.backend,
            "languages": ",".join(settings.languages),
        },
    )
    server.run()
    if exit_code == 0 and not server.started:
        return fail(f"could not listen on {settings.host}:{settings.port}", 4)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
