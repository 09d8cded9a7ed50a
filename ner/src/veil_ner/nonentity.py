"""Post-filter for model spans that are not names: the mistakes a statistical model makes on prompts.

A small news-trained model tags "Explain Kubernetes" as a PERSON, "Reply in JSON format" as a GPE,
`EUR`, `Bearer`, `INFO`, `config` or "Salut" as entities. This filter trims and drops such spans
with evidence that is data, not guesswork (gazetteer.py):

1. Edges: leading and trailing closed-class words (greetings, imperatives, log levels, auth
   schemes, field labels, titles) and lower-case words other than name particles are cut off
   ("Hi Paul" -> "Paul", "Explain Kubernetes" -> "Kubernetes", "@channel Frido" -> "Frido"), as
   are the stop words of en, de, fr, es, it, pt, nl ("Kannst du mir bei ...", "Vite How");
   nothing left -> dropped.
2. Code shape: a span glued to code punctuation (`config.yaml`, `foo_bar`, `main()`, `$HOME`,
   backticks), holding code punctuation (`Client(key="...`), or holding a token with an inner
   capital or a digit (`JavaScript`, `OAuth2`) is an identifier, not a name -> dropped. A capital
   after a hyphen or an apostrophe starts a name's next part (`Smith-Jones`, `O'Brien`,
   `Aix-en-Provence`: person and location spans), and a PERSON span's glued surname prefix
   (`McKenzie`, `LeBatelier`) or Dutch `IJ` (`IJzermans`) is no inner capital (session 15).
3. Vocabulary: when every token is a technical term (Pygments lexers, trove classifiers), a
   currency (ISO 4217 code or name) or a closed-class word -> dropped. A token that is also a
   known person name keeps a PERSON span ("Ruby", "Julia"): a missed name costs more than a
   spared word. A middle initial between capitalized words is no term ("Nusa M Weress"), and a
   listed first name before an initial is no edge word ("Saber A. Mailly"; session 15).
4. Evidence for single tokens: a one-word PERSON must be a known first name or surname and not a
   technical term ("Bash", "Rust": a greeting still makes "Hi Ruby," a name, names.py); a
   PERSON with a technical term and no known name is dropped ("Javascript Redis"); a
   one-word LOCATION a known place (GeoNames), else it is dropped ("Kubernetes" as a person,
   "Bearer" as a place). One-word organizations are kept unless rule 3 applies; upper-case
   acronyms of up to five letters are dropped as PERSON or LOCATION unless they are a known place.
5. Imperatives: a one-word PERSON that opens a sentence and is followed by a determiner or a
   pronoun is a verb ("Mark a protocol class", "Bill the customer", "Sue them").
6. Evidence for organizations: a model ORG span in capitals only is dropped (acronyms, shouted
   licence text: "SDK", "at EOF"; legal forms such as "NTN CORPORATION" are orgs.py's). Another
   is kept when a context names it as an employer or client ("works at", "on behalf of",
   "customer of", "bei", "chez", "Tim Cook of", or after "Title," / "Title |" at the end of a
   signature line), when it ends in an organization head noun ("Pinecrest Financial", "Simple
   Solutions"), or when it has several words one of which is a known surname, first name or place
   ("Goldman Sachs", "Formula Gray") and no technical term, or when its words are the name of a
   listed company (`data/firms.txt`, session 16: "American Express", "General Mills"), or when it is
   one word that is a listed company's name (`data/firm_words.txt`, session 19: "Unilever",
   "Lufthansa"; no dictionary word, no given name), or a name in capitals ending in a head noun
   with a name word before it (session 19: "UMALIS GROUP"). Product
   names, acronyms and capitalized common words ("Fastify", "SDK", "Node.js How") have none of
   these. Legal forms are found by orgs.py.
"""

from __future__ import annotations

import re

from . import gazetteer as g

_CODE_BEFORE = frozenset("._/\\$`<{[=#")
_CODE_AFTER = frozenset("(._/\\`>}[=")


def _tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in g.WORD.finditer(text)]


def _edge_word(token: str) -> bool:
    """A word that cannot open or close a name: closed-class, or lower case and not a particle
    ("channel Frido" -> "Frido"; "van Leeuwen" keeps "van")."""
    key = g.fold(token)
    return (
        key in g.CLOSED_CLASS or key in g.function_words() or (token[:1].islower() and key not in g.PARTICLES)
    )


def _is_term(token: str) -> bool:
    key = g.fold(token)
    return key in g.words("tech_terms") or key in g.words("currencies") or key in g.CLOSED_CLASS


def _is_person_name(token: str) -> bool:
    key = g.fold(token)
    return key in g.first_names() or key in g.last_names()


# How far a word's vector must lean towards the name lists (gazetteer.name_score) to count as a
# name: a listed name word at `_LISTED_SCORE` ("stream", "line", "file" are surnames too and score
# below it), an unlisted one at `_UNLISTED_SCORE` ("laut" 0.033, "bidi" 0.029 do not).
_LISTED_SCORE = 0.025
_UNLISTED_SCORE = 0.04


def _name_evidence(token: str) -> bool:
    """Whether one word of a model PERSON or ORG span speaks for a name (session 9): an initial, a
    word the model's vectors do not know (rare surnames), or a word whose vector leans towards the
    name lists, more weakly when a list holds it. Every word counts without the model's vectors
    (tests' fakes, a model without a vector table): the rule is then off."""
    if not g.has_name_vectors() or len(token.rstrip(".")) == 1 or not g.common_word(token):
        return True
    score = g.name_score(g.fold(token))
    if score is None:
        return True
    return score >= (_LISTED_SCORE if _is_person_name(token) else _UNLISTED_SCORE)


# Surnames written with a capital inside (session 15): a prefix glued to a capitalized name
# ("McKenzie", "LeBatelier", "DiCaprio", "VanDyke") and the Dutch digraph "IJ" ("IJzermans"). In a
# PERSON span they are names, not identifiers; the name after the prefix must be a listed name or
# a word the model's vectors do not know ("MacBook": "Book" is a common word).
_GLUED_SURNAME = re.compile(
    r"(?:Mc|Mac|Fitz|Le|La|De|Di|Du|Da|Del|Van|Von|St)(?P<rest>[A-Z][a-z\u00df-\u00ff]{2,})"
)
_IJ_NAME = re.compile(r"IJ[a-z\u00df-\u00ff]{2,}")


def _glued_surname(token: str) -> bool:
    if _IJ_NAME.fullmatch(token):
        return True
    match = _GLUED_SURNAME.fullmatch(token)
    if match is None or _is_term(token):
        return False
    rest = match.group("rest")
    return _is_person_name(rest) or not g.common_word(rest)


def _initial(token: str) -> bool:
    """A middle initial: one capital letter ("M", "A." is tokenized as "A")."""
    return len(token) == 1 and token.isupper()


def _initialled_name(tokens: list[tuple[int, int, str]]) -> bool:
    """A span opening "First I. Last" whose first word is a listed name ("Saber A. Mailly": "Saber"
    is a Spanish stop word too, "A" an article): the first word and the initial are not edges."""
    return (
        len(tokens) >= 3
        and _is_person_name(tokens[0][2])
        and tokens[0][2][:1].isupper()
        and g.fold(tokens[0][2]) not in g.CLOSED_CLASS
        and _initial(tokens[1][2])
        and tokens[2][2][:1].isupper()
        and len(tokens[2][2]) > 1
    )


# Session 15: hyphens and apostrophes join the parts of names ("Smith-Jones", "Jean-Pierre",
# "O'Brien", "L'Heureux", "Aix-en-Provence"); a capital after one is the next part's, not an
# identifier's inner capital. Each part must be a capitalized word, a lone capital before an
# apostrophe ("O'", "D'"), a glued surname ("Smith-McKenzie") or a lower-case particle.
_NAME_JOINS = re.compile(r"[-'\u2019]")
_JOIN_PARTICLES = frozenset(
    ["en", "sur", "sous", "upon", "on", "am", "an", "im", "le", "la", "les", "lès", "lez", "de", "del", "di"]
)


def _joined_name(token: str) -> bool:
    parts = _NAME_JOINS.split(token)
    if len(parts) < 2 or not parts[0]:
        return False
    for index, part in enumerate(parts):
        if not part:
            return False
        titled = part[0].isupper() and (len(part) == 1 or part[1:].islower())
        if len(part) == 1 and token[len(part)] not in "'\u2019" and index == 0:
            return False  # "T-Mobile", "X-Ray": a letter and a hyphen, a product's form
        if not (titled or _glued_surname(part) or (index > 0 and part in _JOIN_PARTICLES)):
            return False
    return True


# Dotted initials ("U.S", "U.K", "D.C": the span's last dot may be cut) are no code (session 17).
_DOTTED_INITIALS = re.compile(r"(?:[A-Z]\.){1,3}[A-Z]\.?")


def _code_shaped(token: str, kind: str = "") -> bool:
    if kind == "person" and _glued_surname(token):
        return False
    if _DOTTED_INITIALS.fullmatch(token):
        return False
    if kind in ("person", "location") and _joined_name(token):  # not firms: "Floating-Point Arithmetic"
        return any(ch.isdigit() for ch in token) or "_" in token or "." in token
    inner_capital = any(ch.isupper() for ch in token[1:]) and not token.isupper()
    has_digit = any(ch.isdigit() for ch in token)
    return inner_capital or has_digit or "_" in token or "." in token  # `Node.js`, `num.lcm`


# Code inside a span: `Client(key="AKIA...`, `a=b`, `<div>`, `{x}`: never part of a name.
_CODE_INSIDE = re.compile(r'[=<>{}"`]|\w\(')


def _acronym(token: str) -> bool:
    letters = [ch for ch in token if ch.isalpha()]
    return token.isupper() and len(letters) <= 5


def refine(text: str, start: int, end: int, kind: str) -> tuple[int, int] | None:  # noqa: PLR0911, PLR0912 - one per rule
    """The span trimmed of non-name edges, or None when it is not a name (module docstring)."""
    tokens = _tokens(text[start:end])
    # A known place as a whole keeps its first word though it is a greeting or a stop word
    # elsewhere: "Buenos Aires" was cut to "Aires" (session 19).
    whole_place = (
        kind == "location"
        and len(tokens) > 1
        and tokens[0][2][:1].isupper()  # "the Netherlands" still loses "the"
        and g.fold(text[start:end]) in g.places()
    )
    # A particle opens a name only before a capital: "van Leeuwen", not "du mir bei".
    while (
        tokens
        and not whole_place
        and not (kind == "person" and _initialled_name(tokens))
        and (
            _edge_word(tokens[0][2])
            or (tokens[0][2][:1].islower() and (len(tokens) == 1 or tokens[1][2][:1].islower()))
        )
    ):
        tokens.pop(0)
    while (
        tokens
        and (_edge_word(tokens[-1][2]) or tokens[-1][2][:1].islower())
        and not (kind == "organization" and _public_body_head(tokens))
    ):
        tokens.pop()
    if not tokens:
        return None
    new_start, new_end = start + tokens[0][0], start + tokens[-1][1]
    before = text[new_start - 1] if new_start > 0 else " "
    after = text[new_end] if new_end < len(text) else " "
    if before in _CODE_BEFORE or (
        after in _CODE_AFTER and not (after == "." and _sentence_end(text, new_end))
    ):
        return None
    if _field_label(text, new_end):
        return None
    words = [token for _, _, token in tokens]
    if any(_code_shaped(word, kind) for word in words) or _CODE_INSIDE.search(text, new_start, new_end):
        return None
    if all(_is_term(word) for word in words) and not (
        (kind == "person" and len(words) > 1 and any(_is_person_name(word) for word in words))
        or (kind == "organization" and _news_role(text, new_start, new_end))  # "Microsoft agreed to buy"
    ):
        return None
    # A middle initial between two capitalized words is no term ("Nusa M Weress": "M" is a unit)
    middle = [
        word
        for i, word in enumerate(words)
        if not (
            0 < i < len(words) - 1
            and _initial(word)
            and words[i - 1][:1].isupper()
            and words[i + 1][:1].isupper()
        )
    ]
    if kind == "person" and any(_is_term(w) for w in middle) and not any(_is_person_name(w) for w in words):
        return None  # "Javascript Redis": a term and no name
    if kind == "organization" and not _organization_evidence(text, new_start, new_end, words):
        return None
    if kind == "person" and len(words) > 1 and not any(_name_evidence(word) for word in words):
        return None  # "Laut Handbuch", "Bidi Rule", "Line Stream": common words, none a name's
    if kind == "person" and any(w[:1].islower() and g.fold(w) not in g.PARTICLES for w in words[1:-1]):
        return None  # "Befehl zur Dateimanipulation": a name holds no lower-case word but a particle
    if len(words) == 1 and kind == "person" and _imperative(text, new_start, new_end):
        return None
    if len(words) == 1:
        word = words[0]
        if kind == "person" and (not _is_person_name(word) or _acronym(word)):
            return None
        if kind == "location" and not any(
            g.fold(word) in known for known in (g.places(), g.towns(), g.regions())
        ):
            return None
    return new_start, new_end


# A determiner right after the word, or after a verb particle ("Jack up the timeout", "Wade
# through these logs"): the word is a verb.
_DETERMINER_AFTER = re.compile(
    r"[ \t]+(?:(?:up|down|out|off|over|through|back|away|around|across)[ \t]+)?"
    r"(?:a|an|the|this|that|these|those|it|them|all|every|each|my|your|our|their|some|any)\b"
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]|\*/|//|#)[ \t\"'(]*$")


def _imperative(text: str, start: int, end: int) -> bool:
    """Rule 5: a verb in the imperative at the start of a sentence, not a name."""
    before = text[max(0, start - 40) : start]
    return _DETERMINER_AFTER.match(text, end) is not None and _SENTENCE_START.search(before) is not None


_LABEL_AFTER = re.compile(r"[ \t]+(?P<word>[^\W\d_]+)[ \t]*:")


def _field_label(text: str, end: int) -> bool:
    """The span opens a form field: "Social Security Number:", "Company Name:"."""
    match = _LABEL_AFTER.match(text, end)
    return match is not None and g.fold(match.group("word")) in g.FIELD_LABELS


_ORG_CONTEXT = re.compile(
    r"\b(?:at|joined|join|joining|works? (?:at|for)|worked (?:at|for)|employed by|employee of|customer of|"
    r"client of|on behalf of|ceo of|cfo of|founder of|director of|manager at|engineer at|analyst at|bei|chez|"
    r"presso|bij) *$",
    re.IGNORECASE,
)
# A person's employer: "Tim Cook of Apple", "Jane Roe, from Acme" (the word before is capitalized).
_NAMED_OF = re.compile(r"[A-Z][\w'\u2019\-]*,? (?:of|from|at) *$")
# A signature line: "Head of Research, Siemens" / "Account Manager | Acme", the span ending the line.
_SIGNATURE_BEFORE = re.compile(r"[^\W\d_][ \t]*[,|][ \t]*$")
_LINE_END = re.compile(r"[ \t]*(?:\r?\n|$)")


def _organization_evidence(text: str, start: int, end: int, words: list[str]) -> bool:  # noqa: PLR0911
    """An ORG span needs more than capital letters (rule 6): a name or place in it, an organization
    head noun at its end, or a context that names an employer or a client."""
    if len(words) == 1 and listed_firm_word(words[0]):
        return True  # a listed company's one-word name: "Unilever", "Lufthansa", "HSBC" (session 19)
    if all(word.isupper() for word in words) and not (len(words) == 1 and _news_role(text, start, end)):
        # acronyms and shouted text: "SDK", "at EOF", "IMPLIED WARRANTIES"; a firm's name in capitals
        # ending in an organization head noun, with a word before it that is no frequent English
        # word, no technical term and no short acronym, is a firm ("UMALIS GROUP"; not "DATA
        # SERVICES", "API SERVICES"; session 19: 1 true and no false span of the 618 model firms
        # the capitals rule dropped over data/)
        return _capitals_firm(words)
    if len(words) > 1 and g.fold(" ".join(words)) in g.words("firms"):
        return True  # a listed company of everyday words: "American Express", "General Mills"
    if _ORG_CONTEXT.search(text, max(0, start - 30), start) or _NAMED_OF.search(
        text, max(0, start - 40), start
    ):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    if _SIGNATURE_BEFORE.search(text[line_start:start]) and _LINE_END.match(text, end):
        return True
    if any(_is_term(word) for word in words):
        return _news_role(text, start, end)  # "Microsoft agreed to buy ...": a firm in the news
    if g.fold(words[-1]) in g.ORG_HEADS:
        return True
    if len(words) > 1 and g.fold(words[-1]) in PUBLIC_BODY_HEADS:
        return True  # "World Health Organization", "Labour Party", "Supreme Court" (session 18)
    if _institution_named_for(words):
        return True
    if _news_role(text, start, end):
        return True  # "Hamas said", "according to the Pentagon", "shares of Siemens" (session 18)
    # A listed name among several words counts only when it reads as a name (`_name_evidence`):
    # "Image File", "Service Switch", "PDB Stream" hold surnames that are everyday words.
    if len(words) < 2:
        return False
    places = g.places()
    return any((_is_person_name(word) and _name_evidence(word)) or g.fold(word) in places for word in words)


def _capitals_firm(words: list[str]) -> bool:
    """A model firm in capitals that names one (see `_organization_evidence`)."""
    if not 2 <= len(words) <= 5 or g.fold(words[-1]) not in g.ORG_HEADS:
        return False
    if any(_is_term(w) or len(w) <= 3 for w in words[:-1]):
        return False
    return any(g.fold(w) not in g.words("frequent_words") for w in words[:-1])


# Session 19 (wave18/ner): a listed company's name of one word (`data/firm_words.txt`: the
# one-word names of pytickersymbols' index constituents, less every word an English dictionary holds
# in lower case and every listed given name, so "Apple", "Shell", "Target", "Visa", "Next" and
# "Douglas" are not in it) is evidence for a model ORG span: "follow up with Accenture", "Unilever
# has appointed", "asked Lufthansa for a refund" were dropped as one word without evidence. In
# capitals only from four letters ("HSBC", "ASML"; not "AES", "HCI", "CTS": acronyms of everyday
# technical text). It confirms what the model proposed; it finds no firm.
def listed_firm_word(word: str) -> bool:
    """Whether `word` is a listed company's one-word name (see above)."""
    if word.isupper() and len(word) < 4:
        return False
    return g.fold(word) in g.words("firm_words")


# Session 18 (wave17/ner): organizations in running news text. A news sentence names a body by
# what it does there: it is the subject of a reporting or corporate verb ("Hamas said it had
# received the proposal", "The Kremlin denied ...", "Ryanair cut its fares", "Volkswagen shares
# rose"), or the object of an attribution or ownership phrase ("according to the Pentagon", "a
# spokesman for the Commission", "officials from the Taliban", "a stake in Commerzbank", "head of
# the WHO"). Products and everyday words the model calls firms in prompts ("Grafana dashboards
# show", "Fastify's default", "the Traffic technician") stand in no such position. An acronym
# counts only alone and in these positions ("NATO said"; not "SDK", "IMPLIED WARRANTIES").
_NEWS_VERBS = (
    "said|says|told|tells|reported|reports|announced|announces|confirmed|confirms|denied|denies|warned|warns|"
    "accused|urged|agreed|declined|posted|recalled|issued|approved|suspended|fired|expects|plans|"
    "named|launched|acquired|estimated|stated|claimed|pledged|vowed|rejected|condemned|criticized|"
    "criticised|welcomed|unveiled|cut|raised|lowered|opened|closed|sued|filed|fined|banned|delayed"
)
_NEWS_AFTER = re.compile(
    r"(?:,[ \t]+(?:which|who)[ \t]+[^,]{1,60},)?[ \t]+"
    r"(?:(?:has|had|have|also|then|later|previously|again|recently|officially|publicly"
    r"|on[ \t]+[A-Z][a-z]+day)[ \t]+)?"
    rf"(?:{_NEWS_VERBS})\b"
    r"|[ \t]+(?:shares|stock)[ \t]+(?:rose|fell|jumped|slid|gained|dropped|climbed|tumbled|surged|plunged)\b"
)
_NEWS_BEFORE = re.compile(
    r"\b(?:according[ \t]+to|spokes(?:man|woman|person)[ \t]+for|officials?[ \t]+(?:from|of|with)|"
    r"shares[ \t]+(?:of|in)|stake[ \t]+in|head[ \t]+of|chief[ \t]+executive[ \t]+of|"
    r"statement[ \t]+(?:from|by)|"
    r"reported[ \t]+by|sanctions[ \t]+(?:on|against)|talks[ \t]+with|lawyers?[ \t]+for|investors[ \t]+in)"
    r"(?:[ \t]+the)?[ \t]*$",
    re.IGNORECASE,
)
# Head nouns of public bodies, closing a name of two words or more (one word is no name: "the Party").
PUBLIC_BODY_HEADS = frozenset(
    [
        *("organization", "organisation", "party", "court", "parliament", "congress", "senate"),
        *("alliance", "tribunal", "assembly", "administration"),
    ]
)


def _public_body_head(tokens: list[tuple[int, int, str]]) -> bool:
    """A capitalized public body's head noun closes these words ("World Health Organization": the
    head is no field label there, and stays)."""
    last = tokens[-1][2]
    return len(tokens) > 1 and last[:1].isupper() and g.fold(last) in PUBLIC_BODY_HEADS


def news_role(text: str, start: int, end: int) -> bool:
    """Public: whether the span acts in a news sentence (pipeline.py keeps such a firm a firm)."""
    return _news_role(text, start, end)


def _news_role(text: str, start: int, end: int) -> bool:
    """The span is a news sentence's acting subject or its attribution's object (see above)."""
    return (
        _NEWS_AFTER.match(text, end) is not None
        or _NEWS_BEFORE.search(text, max(0, start - 40), start) is not None
    )


# Session 17 (wave16/ner): an institution named by its head first, "Center for U.S. Korea Policy",
# "Institute for Fiscal Studies", "Council on Foreign Relations": the head noun opens the span,
# "for", "of" or "on" follows, then capitalized words. Not "Board of Directors", "Office of the CTO"
# (no such head: boards and offices name parts of a firm), not two words ("Center Stage").
_INSTITUTION_HEADS = frozenset(
    [
        *("center", "centre", "institute", "council", "foundation", "association", "society"),
        *("federation", "commission", "committee", "agency", "bureau", "ministry", "academy", "museum"),
        *("department", "court"),  # session 18: "Department of Justice", "Court of Appeal"
    ]
)


def _institution_named_for(words: list[str]) -> bool:
    return (
        len(words) >= 3
        and g.fold(words[0]) in _INSTITUTION_HEADS
        and words[1] in ("for", "of", "on")
        and all(word[0].isupper() for word in words[2:])
    )


def _sentence_end(text: str, index: int) -> bool:
    """A full stop at `index` that ends a sentence (followed by space or the end), not `a.b`."""
    return index + 1 >= len(text) or text[index + 1].isspace()
