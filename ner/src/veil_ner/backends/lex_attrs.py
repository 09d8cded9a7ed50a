"""The vocabulary's lexeme attribute getters, same values, computed with fewer Python steps
(docs/ner.md, "Throughput, latency and memory", session 15).

spaCy makes a lexeme the first time a word is seen: it calls every function of
`vocab.lex_attr_getters` on the word (about twenty: lower case, norm, prefix, suffix, shape, the
`is_*` and `like_*` flags) and stores the values. Words of the pipeline's fixed lists are lexemes
from load on, but a request runs in a memory zone (spacy_backend.py) whose lexemes are dropped when
it ends, so every other word of every request pays those calls again: about 34 words of a 1 KB
text, about 27 µs each on this machine (under load), a fifth of it in `like_num`, `like_url` and
the two nested norm lookups.

Each getter here is replaced only when it is exactly the function spaCy installed (compared by
identity, so a language or package with its own getters keeps them), by one that returns the same
value for every string:

- the `is_*` flags, `lower` and `is_ascii` by the `str` methods they call (`str.isalpha`, ...), the
  prefix and suffix by item getters, the bracket and quote flags by frozen sets of the same tuples;
- `word_shape` stays (a translation table and a regular expression for its runs were slower on
  words of a few letters);
- `like_num`, `like_url`, `like_email`, `is_punct`, `is_currency`: the loop for any word, except a
  shortcut whose answer the loop provably gives (a word of letters is a number only if it is one
  of the number words; a word of letters or digits is neither punctuation nor currency; a word
  without a full stop, "@" or a scheme is not a URL; no "@", no e-mail);
- the norm: spaCy's nested lookups (the package's `lexeme_norm` table by string hash, then the
  language's exceptions, then lower case) as one function with the same order.

`install` checks every replacement against the original on a fixed list of strings (ASCII,
accented and other scripts' letters, digits of other scripts, currency signs, URLs, e-mails,
numbers, runs, long words) and keeps the original for any that differs;
ner/tests/test_session15_speed.py compares them on every string of the model's string store and on
random Unicode strings.
"""

from __future__ import annotations

import functools
import logging
import operator
import string as _string
import unicodedata
from collections.abc import Callable
from typing import Any

log = logging.getLogger("veil_ner.spacy")

_MISSING = object()


def _fast_like_num(original: Callable[[str], bool], words: frozenset[str]) -> Callable[[str], bool]:
    def like_num(text: str) -> bool:
        if text.isalpha():
            return text.lower() in words
        return original(text)

    return like_num


def _fast_not_alnum(original: Callable[[str], bool]) -> Callable[[str], bool]:
    """is_punct and is_currency: a non-empty word of letters or digits has a character whose
    category is a letter or a number, so it is neither."""

    def flag(text: str) -> bool:
        if text.isalnum():
            return False
        return original(text)

    return flag


def _fast_like_url(original: Callable[[str], bool]) -> Callable[[str], bool]:
    def like_url(text: str) -> bool:
        # Without a full stop only the scheme can make it a URL (spaCy's loop answers False
        # after finding no "."); the empty string goes to the original (which raises).
        if text and "." not in text and not text.startswith(("http://", "https://")):
            return False
        return original(text)

    return like_url


def _fast_like_email(original: Callable[[str], bool]) -> Callable[[str], bool]:
    def like_email(text: str) -> bool:
        if "@" not in text:  # the pattern matches from the start and needs an "@"
            return False
        return original(text)

    return like_email


def _flatten_norm(getter: Any, unless: Callable[..., Any]) -> tuple[list[Any], Any] | None:
    """spaCy's norm getter: partial(_get_attr_unless_lookup, inner, lookups) nested; the lookups in
    the order they are tried and the innermost function, or None for another shape."""
    lookups: list[Any] = []
    while isinstance(getter, functools.partial) and getter.func is unless:
        if getter.keywords or len(getter.args) != 2:
            return None
        inner, tables = getter.args
        lookups.extend(tables)
        getter = inner
    return (lookups, getter) if lookups else None


def _fast_norm(
    lookups: list[Any], base: Callable[[str], Any], table_type: type
) -> Callable[[str], Any] | None:
    from spacy.strings import get_string_id  # noqa: PLC0415 - heavy import kept off the module path

    steps: list[tuple[bool, dict[Any, Any]]] = []
    for lookup in lookups:
        if isinstance(lookup, table_type):
            # Table.__contains__ asks the Bloom filter first: the same only if every key is in it.
            if not all(key in lookup.bloom for key in lookup):
                return None
            steps.append((True, dict(lookup.items())))
        elif type(lookup) is dict:
            steps.append((False, lookup))
        else:
            return None
    if base is _lex().lower:
        base = str.lower
    hashed = tuple(steps)

    def norm(text: str) -> Any:
        key = None
        for by_hash, table in hashed:
            if by_hash:
                if key is None:
                    key = get_string_id(text)
                value = table.get(key, _MISSING)
            else:
                value = table.get(text, _MISSING)
            if value is not _MISSING:
                return value
        return base(text)

    return norm


def _lex() -> Any:
    from spacy.lang import lex_attrs  # noqa: PLC0415

    return lex_attrs


def _constant(value: Any) -> Callable[[str], Any]:
    def getter(_text: str) -> Any:
        return value

    return getter


def fast_getters(getters: dict[int, Callable[[str], Any]]) -> dict[int, Callable[[str], Any]]:  # noqa: PLR0912
    """The replacements for the getters spaCy installed that this module knows, by attribute."""
    from spacy import attrs, util  # noqa: PLC0415
    from spacy.lang.en import lex_attrs as en_lex  # noqa: PLC0415
    from spacy.lookups import Table  # noqa: PLC0415

    lex = _lex()
    same: dict[Any, Callable[[str], Any]] = {
        lex.lower: str.lower,
        lex.is_alpha: str.isalpha,
        lex.is_digit: str.isdigit,
        lex.is_lower: str.islower,
        lex.is_space: str.isspace,
        lex.is_title: str.istitle,
        lex.is_upper: str.isupper,
        lex.is_ascii: str.isascii,
        lex.prefix: operator.itemgetter(0),
        lex.suffix: operator.itemgetter(slice(-3, None)),
    }
    out: dict[int, Callable[[str], Any]] = {}
    for attr, getter in getters.items():
        fast: Callable[[str], Any] | None = None
        if getter in same:
            fast = same[getter]
        elif getter is en_lex.like_num:
            fast = _fast_like_num(getter, frozenset(en_lex._num_words) | frozenset(en_lex._ordinal_words))
        elif getter is lex.like_num:
            fast = _fast_like_num(getter, frozenset())
        elif getter in (lex.is_punct, lex.is_currency):
            fast = _fast_not_alnum(getter)
        elif getter is lex.like_url:
            fast = _fast_like_url(getter)
        elif getter is lex.like_email:
            fast = _fast_like_email(getter)
        elif getter in (lex.is_bracket, lex.is_quote, lex.is_left_punct, lex.is_right_punct):
            fast = frozenset(_flag_members(getter)).__contains__
        elif isinstance(getter, functools.partial) and not getter.args:
            keywords = getter.keywords
            if getter.func is lex.is_stop and set(keywords) == {"stops"}:
                stops = frozenset(keywords["stops"])
                fast = _stop_getter(stops)
            elif getter.func is lex.get_lang and set(keywords) == {"lang"}:
                fast = _constant(keywords["lang"])
        if fast is None and attr == attrs.NORM:
            flat = _flatten_norm(getter, util._get_attr_unless_lookup)
            if flat is not None:
                fast = _fast_norm(*flat, Table)
        if fast is not None:
            out[attr] = fast
    return out


def _stop_getter(stops: frozenset[str]) -> Callable[[str], bool]:
    def is_stop(text: str) -> bool:
        return text.lower() in stops

    return is_stop


def _flag_members(getter: Callable[[str], bool]) -> tuple[str, ...]:
    """The strings a membership flag of spaCy's (`text in (...)`) accepts: its tuple constant."""
    constants = [c for c in getter.__code__.co_consts if isinstance(c, tuple)]
    if len(constants) != 1 or not all(isinstance(c, str) for c in constants[0]):
        raise ValueError("unexpected flag getter")
    return constants[0]


def check_strings() -> list[str]:
    """The fixed list every replacement is compared on at load."""
    out = list(_string.printable)
    out += [a + b for a in _string.punctuation for b in _string.punctuation[:8]]
    out += [
        *("the", "The", "THE", "don't", "Dr.", "U.S.", "e.g.", "3rd", "21st", "12th", "first"),
        *("Twenty", "ONE", "1,000", "3.14", "+44", "-5", "±3", "~7", "1/2", "a/b", "10/20/30"),
        *("www.example.com", "http://x", "https://a.b/c", "example.org", "a.b", ".com", "com."),
        *("jane@example.com", "a@b", "@x", "x@", "user.name+tag@mail.co.uk", "a.b@c"),
        *("Müller", "ÉCOLE", "straße", "İstanbul", "ǅemal", "Ωmega", "Москва", "ΑΘΗΝΑ", "日本"),
        *("١٢٣", "²", "Ⅻ", "€", "$", "£5", "¥", "₹100", "«", "»", "“", "”", "\u2018", "\u2019", "—", "…"),
        *("aaaaaa", "AAAAAAA", "1111111", "-----", "xxxxXXXXxxxx", "ßßßßß", "\n\n\n\n\n\n"),
        *("co-operate", "O'Neil", "O\u2019Brien", "'s", "n't", "\u2019s", "ñandú", "Ångström", "Þór"),
        "a" * 99,
        "A" * 100,
        "x" * 150,
    ]
    out += [chr(code) for code in range(0x00A0, 0x0600, 7)]
    out += [unicodedata.lookup(name) for name in ("BULLET", "EM DASH", "EURO SIGN", "SECTION SIGN")]
    return out


def install(vocab: Any) -> int:
    """Replace the known getters of `vocab` by their faster forms; each only if it gives the
    original's value (and type) on every string of `check_strings`. Returns how many replaced."""
    getters = vocab.lex_attr_getters
    if not getters:
        return 0
    strings = check_strings()
    replaced = 0
    for attr, fast in fast_getters(getters).items():
        original = getters[attr]
        if all(_same(original, fast, text) for text in strings):
            getters[attr] = fast
            replaced += 1
        else:
            log.warning("lexeme attribute getter kept", extra={"attribute": int(attr)})
    return replaced


def _same(original: Callable[[str], Any], fast: Callable[[str], Any], text: str) -> bool:
    try:
        want = original(text)
    except Exception as error:
        try:
            fast(text)
        except Exception as other:
            return type(other) is type(error)
        return False
    try:
        got = fast(text)
    except Exception:
        return False
    return type(got) is type(want) and got == want
