"""Word lists the recognizers share: gazetteers derived from registry data packages, and the
closed word classes a model alone gets wrong.

Data-derived (ner/src/veil_ner/data/*.txt, built by tools/gazetteers/build.py; sources and licences
in data/SOURCES.md): first names, surnames, places and smaller towns (GeoNames), currencies
(ISO 4217), technical
terms (Pygments lexers, trove classifiers). Each file holds one case-folded entry per line.

Closed classes (written here, not learned: they are small, finite and language-bound): greetings
and closings, imperative verbs that open an instruction, log levels, HTTP auth schemes, field
labels, honorific titles and name particles, for en, de, fr, es, it, pt and nl (the languages of
the catalog's context words).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import NamedTuple

_DATA = "data"


def fold(word: str) -> str:
    """The lookup key for a word: NFC, case-folded, typographic apostrophe made plain."""
    if word.isascii():  # the same key: ASCII is NFC already, has no U+2019, and folds as it lowers
        return word.lower()
    return unicodedata.normalize("NFC", word).replace("\u2019", "'").casefold()


@functools.cache
def words(name: str) -> frozenset[str]:
    """One data file (`first_names`, `last_names`, `places`, `currencies`, `tech_terms`)."""
    text = resources.files(__package__).joinpath(_DATA, f"{name}.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


@functools.cache
def first_names() -> frozenset[str]:
    """Faker + US Census given names, and (session 14) the nam_dict given names, kept in a file
    of their own under their own licence (GNU FDL 1.2+; data/SOURCES.md)."""
    return words("first_names") | words("first_names_nam_dict")


def last_names() -> frozenset[str]:
    return words("last_names")


def places() -> frozenset[str]:
    return words("places")


def regions() -> frozenset[str]:
    """Countries and the world's first-level regions (ISO 3166-1/3166-2: "Steiermark", "Jönköpings
    län"; session 10). Read only where a place is asked for (a place preposition, a line of its
    own, a town's region), never as evidence for or against a name or a firm."""
    return words("regions")


def towns() -> frozenset[str]:
    """Smaller places (1,000+ inhabitants): only where the context already says "a place"."""
    return words("towns")


@functools.cache
def function_words() -> frozenset[str]:
    """Words that never open or close a name: spaCy's stop-word lists for the catalog's languages
    (data shipped with spaCy, MIT), minus name particles and known first names ("Ella", "Will").
    Each `spacy/lang/XX/stop_words.py` is read as text: importing the language packages would cost
    seconds of startup for nothing else."""
    return stop_words() - first_names()


@functools.cache
def stop_words() -> frozenset[str]:
    """The stop words of the catalog's languages, first names included ("An", "Will", "Else"):
    for rules that must not start a name with one."""
    import importlib.util  # noqa: PLC0415 - only at load time

    spec = importlib.util.find_spec("spacy")
    if spec is None or spec.origin is None:
        return frozenset()
    root = Path(spec.origin).parent / "lang"
    out: set[str] = set()
    for language in ("en", "de", "fr", "es", "it", "pt", "nl"):
        source = (root / language / "stop_words.py").read_text(encoding="utf-8")
        # The lists are whitespace-separated words in triple-quoted strings; read, never executed.
        for block in re.findall(r'"""(.*?)"""', source, flags=re.DOTALL):
            out.update(block.split())
    return frozenset(fold(w) for w in out) - PARTICLES


_vocabulary: list[object] = []


def use_vocabulary(vocab: object) -> None:
    """The loaded model's vocabulary (a spaCy `Vocab`), for `common_word` and `name_score`. Set by
    the backend. The name direction is computed here, at load, so no request pays for it."""
    _vocabulary[:] = [vocab]
    _name_direction[:] = [_direction(vocab)]
    _row_scores[:] = [(vocab, _name_direction[0], _scores_of(vocab, _name_direction[0]))]


def common_word(word: str) -> bool:
    """Whether the model's static word vectors know the word (20,000 rows built from web text
    cover the common vocabulary of English and many common words of other languages, not rare
    surnames such as "Pugliesi" or "Njivar"). Without a vocabulary every word counts as common,
    so the rules that need a rare word stay off."""
    if not _vocabulary:
        return True
    vectors = getattr(_vocabulary[0], "vectors", None)
    key2row = getattr(vectors, "key2row", None)
    if not key2row:
        return _row(word) is not None or _row(word.lower()) is not None
    # Session 15: `_row(word) is not None` without fetching the row (the same keys, one lookup).
    string_id = _string_id()
    return string_id(word) in key2row or string_id(word.lower()) in key2row


@functools.cache
def _string_id() -> Callable[[str], int]:
    """spaCy's string hash (imported once, not on every lookup)."""
    from spacy.strings import get_string_id  # noqa: PLC0415 - only with a spaCy vocabulary

    return get_string_id


def _row(word: str) -> object | None:
    """The vector of a word, or None. Looked up by the word's hash: spaCy's `Vocab.has_vector`
    and `get_vector` add every word they are asked about to the model's string store, which would
    grow with each request's text for the life of the sidecar."""
    vocab = _vocabulary[0]
    vectors = getattr(vocab, "vectors", None)
    key2row = getattr(vectors, "key2row", None)
    if not key2row:  # a vocabulary without a vector table (tests' fakes): its own lookup
        return True if vocab.has_vector(word) else None  # type: ignore[attr-defined]
    row = key2row.get(_string_id()(word))
    return None if row is None else vectors.data[row]  # type: ignore[union-attr]


_name_direction: list[object] = []


def name_score(word: str) -> float | None:
    """How much the model's static vector of a word (lower case) leans towards the name lists: the
    cosine with the difference between the mean unit vector of the rows that known first names and
    surnames map to and the mean of all other rows (computed once per vocabulary, ~0.15 s). Names
    score about 0.03-0.1 ("roland" 0.10, "soos" 0.03), common words below ~0.02 ("line" -0.03,
    "green" 0.02). None without a vocabulary with vectors, or for a word without a vector (rare)."""
    if not _vocabulary:
        return None
    vocab = _vocabulary[0]
    if not _name_direction:
        _name_direction.append(_direction(vocab))
    direction = _name_direction[0]
    if _row_scores:
        built_for, built_with, scores = _row_scores[0]
        if built_for is vocab and built_with is direction and scores is not None:
            # Session 18: the score of the word's row, computed at load by `_score` itself
            row_index = vocab.vectors.key2row.get(_string_id()(word.lower()))  # type: ignore[attr-defined]
            return None if row_index is None else scores[row_index]
    row = None if direction is None else _row(word.lower())
    if row is None:
        return None
    return _score(row, direction)


def _score(row: object, direction: object) -> float | None:
    """`name_score` of one row of the vector table."""
    import numpy as np  # noqa: PLC0415 - only with a model's vocabulary

    vector = np.asarray(row, dtype="float32")
    norm = float(np.linalg.norm(vector))
    return float(vector @ direction) / norm if norm else None  # type: ignore[operator]


# Session 18 (wave17/fast, speed only): `name_score` of every row of the vector table, computed by
# `_score` row by row when the vocabulary is set (`use_vocabulary`, at load): the same floats, bit
# for bit, as computing a word's score when asked (about 50 µs each, five or six per 1 KB text),
# and independent of traffic (every row, before the first request; no request's word is kept).
# Used only for the vocabulary and direction it was built from (tests swap both).
_row_scores: list[tuple[object, object, list[float | None] | None]] = []


def _scores_of(vocab: object, direction: object) -> list[float | None] | None:
    vectors = getattr(vocab, "vectors", None)
    if direction is None or not getattr(vectors, "key2row", None):
        return None
    data = vectors.data  # type: ignore[union-attr]
    return [_score(data[index], direction) for index in range(len(data))]


def _direction(vocab: object) -> object:
    import numpy as np  # noqa: PLC0415

    vectors = getattr(vocab, "vectors", None)
    if vectors is None or not getattr(vectors, "key2row", None):
        return None
    names = (first_names() | last_names()) - stop_words() - places()
    strings = vocab.strings  # type: ignore[attr-defined]
    rows = {vectors.key2row[key] for key in (strings[n] for n in names) if key in vectors.key2row}
    data = vectors.data
    if not rows or len(rows) == len(data):
        return None
    # Means of the unit rows as two matrix-vector products: no normalised copy of the table
    # (20,000 x 300 floats) stays behind in the sidecar's memory.
    inverse = 1.0 / (np.sqrt(np.einsum("ij,ij->i", data, data)) + 1e-9)  # no squared copy either
    mask = np.zeros(len(data), dtype=bool)
    mask[list(rows)] = True
    names_weight = np.where(mask, inverse / mask.sum(), 0.0).astype(data.dtype)
    others_weight = np.where(mask, 0.0, inverse / (~mask).sum()).astype(data.dtype)
    return np.asarray(data.T @ names_weight - data.T @ others_weight, dtype="float32")


def has_name_vectors() -> bool:
    """Whether `name_score` can tell names from words (a vocabulary with vectors is loaded)."""
    return bool(_name_direction) and _name_direction[0] is not None


def load_all() -> None:
    """Read every list once (at model load), so no request pays for it."""
    for name in ("first_names", "last_names", "places", "regions", "towns", "currencies", "tech_terms"):
        words(name)
    function_words()
    stop_words()


# The last text lower-cased (`lower_view`): one (text, view) tuple, replaced in one assignment, so
# concurrent callers never see one text's view paired with another text.
_lower_cache: tuple[str, str | None] = ("", "")


def lower_view(text: str) -> str | None:
    """`text.lower()` when it keeps every character's offset (the same length: no "İ", which
    lowers to two code points), else None. Cached for the last text: the recognizers of one text
    share it."""
    global _lower_cache  # noqa: PLW0603 - a one-entry cache
    cached = _lower_cache
    if cached[0] is text:
        return cached[1]
    lowered = text.lower()
    view = lowered if len(lowered) == len(text) else None
    _lower_cache = (text, view)
    return view


class Trigger(NamedTuple):
    """Trigger phrases (lower case, `|`-separated) between a look-behind and a look-ahead, compiled
    twice: `fast` case-sensitive, for the lower-cased view of a text, and `slow` case-insensitive,
    for texts whose lower-case form changes length (see `triggered`). `before`, when set, is the
    look-behind alone, left out of `fast` (see `trigger`)."""

    fast: re.Pattern[str]
    slow: re.Pattern[str]
    before: re.Pattern[str] | None = None


def trigger(before: str, phrases: str, after: str) -> Trigger:
    """The Trigger of `phrases` (lower case) with the look-behind `before` and look-ahead `after`.

    Session 14 (speed only, the same matches): when every phrase opens with a letter (no group in
    `phrases`), `fast` is compiled without the look-behind, which `triggered` tests where a phrase
    is found. A pattern that opens with an alternation of literals lets the regular-expression
    engine skip in C to the positions where one of their first letters stands; a look-behind first
    makes it try the whole pattern at every position (about half the time of a 1 KB text's search
    for the title, introduction, cue, handing and place-label phrases). A phrase list with groups
    keeps the look-behind in `fast`: without it, the groups are tried inside every word."""
    slow = re.compile(rf"{before}(?i:{phrases}){after}")
    if "(" in phrases:
        return Trigger(re.compile(rf"{before}(?:{phrases}){after}"), slow)
    return Trigger(re.compile(rf"(?:{phrases}){after}"), slow, re.compile(before))


def triggered(text: str, phrases: Trigger, rest: re.Pattern[str]) -> Iterator[tuple[int, re.Match[str]]]:
    """Matches of a case-insensitive trigger phrase followed by `rest`, like `finditer` of one
    pattern `(?i:trigger)rest` but about four times cheaper: a case-insensitive alternation is
    tried letter by letter at every position, while `phrases.fast` (the phrases in lower case,
    case-sensitive) runs on the lower-cased view of the text, and `rest` (case-sensitive, on the
    text itself) is tried only where a phrase ends. `phrases.slow` is the case-insensitive
    pattern, for texts whose lower-case form changes length. A trigger must end in a look-ahead
    that fixes which alternative matches (`(?=[ \t])`): no backtracking into it happens here.
    Yields the trigger's start and the match of `rest`; matches do not overlap.

    A phrase found by a `fast` without its look-behind (`phrases.before`) counts only where the
    look-behind holds; otherwise the search goes on one character later, as the search of the
    whole pattern would: the look-behind does not depend on which phrase matched, so the first
    position where both hold, and the phrase matched there, are the same."""
    view = lower_view(text)
    pattern, haystack = (phrases.slow, text) if view is None else (phrases.fast, view)
    before = None if view is None else phrases.before
    position = 0
    while (found := pattern.search(haystack, position)) is not None:
        if before is not None and before.match(haystack, found.start()) is None:
            position = found.start() + 1
            continue
        match = rest.match(text, found.end())
        if match is None:
            position = found.start() + 1
            continue
        yield found.start(), match
        position = max(match.end(), found.start() + 1)


def _set(text: str) -> frozenset[str]:
    return frozenset(fold(w) for w in text.split())


GREETINGS = _set(
    """hi hello hey dear hiya howdy greetings guten gute morgen tag abend nacht thanks thank thx cheers
    regards best sincerely bye goodbye
    welcome congrats congratulations morning evening afternoon night
    hallo moin servus grüß gruß grüezi liebe lieber liebes sehr geehrte geehrter danke tschüss mfg gruss
    grüsse
    grüße bonjour bonsoir salut coucou cher chère chers merci cordialement bisous
    hola buenos buenas querido querida queridos estimado estimada gracias saludos adiós
    ciao buongiorno buonasera salve caro cara gentile grazie saluti arrivederci
    olá oi bom boa prezado prezada obrigado obrigada abraços beijos
    hoi goedemorgen goedemiddag beste geachte dank groeten doei"""
)
IMPERATIVES = _set(
    """explain reply write summarize summarise translate create generate describe list show give tell make
    fix refactor convert compare rewrite answer respond format return output print find check review debug
    implement build design draft compose define calculate compute sort parse extract classify analyze analyse
    optimize optimise help please use add remove delete update rename run deploy install configure set enable
    disable keep ignore act pretend imagine suggest recommend provide outline continue stop ask send
    erkläre erklär schreibe schreib übersetze fasse antworte antworten erstelle gib zeige liste bitte
    explique expliquez écris écrivez traduis traduisez résume résumez réponds répondez donne crée
    explica escribe traduce resume responde dame crea muestra lista
    spiega scrivi traduci riassumi rispondi dammi crea mostra elenca
    explique escreva traduza resuma responda dê crie mostre liste
    leg uit schrijf vertaal vat antwoord geef maak toon"""
)
LOG_WORDS = _set(
    """trace debug info information notice warn warning error err fatal critical crit alert emerg emergency
    severe fine finer finest verbose success ok fail failed failure exception traceback panic stack stacktrace
    get post put patch delete head options connect"""
)
AUTH_WORDS = _set("bearer basic digest token oauth apikey api-key hmac negotiate ntlm jwt")
FIELD_LABELS = _set(
    """name names first last full surname given username user login account address street city town
    state country region province zip postcode postal code company organization organisation employer
    phone mobile tel fax email e-mail mail contact date birthday dob id number no nr subject to from cc bcc
    vorname nachname straße strasse stadt ort land firma telefon geburtsdatum anschrift adresse
    nom prénom rue ville pays société entreprise téléphone courriel naissance
    nombre apellido apellidos calle ciudad país empresa teléfono correo dirección
    nome cognome via città paese azienda telefono indirizzo
    sobrenome rua cidade endereço telefone
    naam voornaam achternaam straat stad bedrijf telefoon adres"""
)
TITLES = _set(
    """mr mrs ms miss mx dr prof sir madam madame mme mlle m herr frau fr hr dott dott.ssa ing avv sig sig.ra
    sr sra srta don doña dhr mevr mevrouw meneer heer señor señora signor signora senhor senhora"""
)
PARTICLES = _set(
    "van von der den de del della dei di da das dos do du le la les ter ten zu y e bin al el mac"
)

# Words that may stand right before a first name in chat and make it a name ("Hi Paul", "@Paul").
NAME_OPENERS = GREETINGS | _set("cc ping attn attention")
# Who a greeting addresses when it is not a person ("Hi team", "Hallo zusammen").
ADDRESSEES = _set(
    """team all everyone everybody there guys folks people friends colleagues world support sir madam
    zusammen allerseits alle leute tous équipe todos todas equipo tutti ragazzi pessoal equipe iedereen
    allemaal"""
)
# Head nouns that end organization names ("Pinecrest Financial", "Simple Solutions", "Red Cross
# Society"): a closed class of what companies and institutions call themselves.
ORG_HEADS = _set(
    """bank banks group systems solutions technologies technology software labs laboratories capital partners
    foods energy insurance media logistics properties dynamics engineering financial finance analytics
    maritime outdoor airlines airways motors pharmaceuticals pharma consulting services industries
    international holdings trust fund corporation university college school hospital clinic institute
    council ministry agency department association society club foundation federation union committee
    commission authority bureau network networks studios records press news times journal post
    entertainment enterprises ventures resources investments securities brands retail markets stores
    airport railways rail shipping telecom communications electric electronics chemicals steel mining oil gas
    gmbh inc ltd llc corp co plc ag sa bv nv spa srl"""
)
STREET_TYPES = _set(
    """street st avenue ave road rd boulevard blvd lane ln drive dr court ct place pl square terrace way
    parkway
    highway circle trail crescent close grove gardens row mews plaza alley route walk park expressway
    ridge pike
    loop corners villages ranch"""
)
# Literals of programming languages, capitalized as Python and others write them ("returns
# None", "defaults to True"): "None" is also a town in Piedmont the model tags as a place.
CODE_LITERALS = _set("none null true false nan undefined notimplemented nullptr")
# Words that never are a name on their own, whatever the model says.
CLOSED_CLASS = GREETINGS | IMPERATIVES | LOG_WORDS | AUTH_WORDS | FIELD_LABELS | TITLES | CODE_LITERALS

# Upper-case letters for character classes: Latin (ASCII, Latin-1, Latin Extended-A), Greek and
# Cyrillic ("380 Σκαφίδια 233", "in ΠΑΦΟΣ": names and addresses written in their own script).
UPPER = "A-Z\u00c0-\u00d6\u00d8-\u00de\u0100-\u017f\u0386\u0388-\u038f\u0391-\u03ab\u0400-\u042f"
WORD = re.compile(r"[^\W\d_](?:[\w'\u2019.\-]*[^\W_])?")
