"""The recognition pipeline above the model: gazetteers, the non-entity filter, the street-address,
organization-form and gazetteer-name recognizers, and how pipeline.py combines them with model
spans. Pure Python (no model), except the last test, which sends the issue's prompts to a real
sidecar."""

from __future__ import annotations

import json
import urllib.request

import pytest

from conftest import API_KEY
from veil_ner import addresses, gazetteer, names, nonentity, orgs, pipeline
from veil_ner.backends import RawEntity
from veil_ner.launch import Sidecar


def found(finder, text: str) -> list[str]:
    return [text[start:end] for start, end in finder(text)]


# --- gazetteers ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["Jürgen", "Françoise", "Begoña", "Giuseppe", "João", "Sanne", "Emily", "Priya", "Hiroshi"]
)
def test_first_names_cover_the_catalog_languages(name: str) -> None:
    assert gazetteer.fold(name) in gazetteer.first_names()


@pytest.mark.parametrize("name", ["Müller", "Lefèvre", "García", "Esposito", "Ferreira", "Jansen", "Smith"])
def test_surnames_cover_the_catalog_languages(name: str) -> None:
    assert gazetteer.fold(name) in gazetteer.last_names()


@pytest.mark.parametrize(
    "place", ["Hamburg", "München", "Munich", "Lyon", "Sevilla", "Porto", "Den Haag", "France"]
)
def test_places(place: str) -> None:
    assert gazetteer.fold(place) in gazetteer.places()


def test_terms_and_currencies() -> None:
    assert {"json", "python", "yaml"} <= gazetteer.words("tech_terms")
    assert {"eur", "usd", "euro"} <= gazetteer.words("currencies")


# --- non-entity filter --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "start", "end", "kind"),
    [
        ("Explain Kubernetes", 0, 18, "person"),
        ("Reply in JSON format", 9, 13, "location"),
        ("Reply in JSON format", 0, 5, "location"),
        ("The price is 20 EUR per month", 16, 19, "organization"),
        ("Authorization: Bearer abc", 15, 21, "location"),
        ("INFO build finished", 0, 4, "organization"),
        ("Salut, ça va ?", 0, 5, "person"),
        ("open config.yaml now", 5, 11, "organization"),
        ("call JavaScript here", 5, 15, "organization"),
        ("Social Security Number: 123", 0, 15, "organization"),
        ("Kubernetes rocks", 0, 10, "person"),
        ("I love Ruby", 7, 11, "person"),  # a language and a first name: the term wins alone...
        ("Use Javascript Redis", 4, 20, "person"),
        ("Kannst du mir bei Underscore helfen", 7, 28, "person"),
        ("seek to EOF first", 8, 11, "organization"),
        ("Try Fastify today", 4, 11, "organization"),
        ("See the Node.js How-to", 8, 19, "organization"),
    ],
)
def test_non_entities_are_dropped(text: str, start: int, end: int, kind: str) -> None:
    assert nonentity.refine(text, start, end, kind) is None


@pytest.mark.parametrize(
    ("text", "start", "end", "kind", "kept"),
    [
        ("Hi Paul, thanks", 0, 7, "person", "Paul"),
        ("@channel Constantin pushed", 1, 19, "person", "Constantin"),
        ("Dear Siobhan Sato,", 0, 17, "person", "Siobhan Sato"),
        ("from van Leeuwen BV", 5, 19, "organization", "van Leeuwen BV"),
        ("She works at Goldman Sachs now", 13, 26, "organization", "Goldman Sachs"),
        ("Head of Research, Siemens\nHamburg", 18, 25, "organization", "Siemens"),
        ("on behalf of Pinecrest Financial", 13, 32, "organization", "Pinecrest Financial"),
        ("in Hamburg.", 3, 10, "location", "Hamburg"),
    ],
)
def test_names_are_kept_and_trimmed(text: str, start: int, end: int, kind: str, kept: str) -> None:
    refined = nonentity.refine(text, start, end, kind)
    assert refined is not None and text[refined[0] : refined[1]] == kept


# --- street addresses ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Ship it to 125 S Church Street, East Stephanie.", "125 S Church Street, East Stephanie"),
        ("Send to 97316 W 11th Street, Rutherfordfield please", "97316 W 11th Street, Rutherfordfield"),
        (
            "Office: 1600 Pennsylvania Ave NW, Washington, DC 20500",
            "1600 Pennsylvania Ave NW, Washington, DC 20500",
        ),
        ("He lives at 221B Baker Street, London NW1 6XE.", "221B Baker Street, London NW1 6XE"),
        ("Adresse: Hauptstraße 5, 10115 Berlin", "Hauptstraße 5, 10115 Berlin"),
        ("Wir sind Am Markt 3 in Bremen", "Am Markt 3"),
        ("Écrivez au 12 rue de la Paix, 75002 Paris.", "12 rue de la Paix, 75002 Paris"),
        ("Vivo en Calle Mayor 5, 28013 Madrid", "Calle Mayor 5, 28013 Madrid"),
        ("Abito in Via Pasquale Scura 127", "Via Pasquale Scura 127"),
        ("Ons kantoor: Keizersgracht 123a, 1015 CJ Amsterdam", "Keizersgracht 123a, 1015 CJ Amsterdam"),
        ("Moro na Rua Augusta 24, 1100-048 Lisboa", "Rua Augusta 24, 1100-048 Lisboa"),
        ("Write to P.O. Box 255", "P.O. Box 255"),
        ("Helena\n637 Strojírenská 1006\n Suite 026\n Svratka\n Czech Republic", None),
    ],
)
def test_addresses(text: str, address: str | None) -> None:
    result = found(addresses.find, text)
    if address is None:  # a street without a type word: found with its leading number and tail lines
        assert result == ["637 Strojírenská 1006\n Suite 026\n Svratka\n Czech Republic"]
    else:
        assert result == [address]


@pytest.mark.parametrize(
    "text",
    [
        "Upgrade to Windows 10 and Python 3.12 today",
        "Born on March 12, 1954 in a small town",
        "Card 4163 R534 5314 expired",
        "We sold 3 Apple products",
        "Chapter 5, Section 2",
    ],
)
def test_no_address_in_ordinary_text(text: str) -> None:
    assert found(addresses.find, text) == []


# --- organizations by form ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "org"),
    [
        ("Senior Analyst, Harter Gruppe\nMobile", "Harter Gruppe"),
        ("on behalf of Pinecrest Financial Ltd regarding", "Pinecrest Financial Ltd"),
        ("Senior Analyst, Carpentier et Dubois", "Carpentier et Dubois"),
        ("Analyst, Schmidt - Meyer", "Schmidt - Meyer"),
        ("Dear Acme Holdings, hello", "Acme Holdings"),
        ("She studied at the University of Leeds", "University of Leeds"),
    ],
)
def test_organizations_by_form(text: str, org: str) -> None:
    assert org in found(orgs.find, text)


@pytest.mark.parametrize("text", ["Thomas and James are coming", "our founders: Lapresse, Morris and Wright"])
def test_people_lists_are_not_firms(text: str) -> None:
    assert found(orgs.find, text) == []


# --- names in the catalog's languages -----------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Meeting with Anne-Marie van der Berg tomorrow", "Anne-Marie van der Berg"),
        ("Valérie B Lafontaine said", "Valérie B Lafontaine"),
        ("Hallo Jens, wie geht's?", "Jens"),
        ("Bonjour Camille !", "Camille"),
        ("Hola Begoña, gracias", "Begoña"),
        ("Ciao Giuseppe, a domani", "Giuseppe"),
        ("Olá João, tudo bem?", "João"),
        ("Hoi Sanne, bedankt", "Sanne"),
        ("Hi Keiran, a question", "Keiran"),  # unknown name, addressed by a greeting
        ("Hi Ruby, thanks!", "Ruby"),  # ...but a greeting makes it a name
        ("Frau Müller hat angerufen", "Müller"),
        ("Ermelinda Di Giacomo filed a claim", "Ermelinda Di Giacomo"),
        ("Constantin pushed the fix", "Constantin"),
        ("Chloe: What a day.", "Chloe"),
        ("my name is Ingrid", "Ingrid"),
    ],
)
def test_gazetteer_names(text: str, name: str) -> None:
    assert name in found(names.find, text)


@pytest.mark.parametrize(
    "text",
    [
        "CAN I SPEAK TO A REAL PERSON?",
        "Hi team, the build is green",
        "Hallo zusammen!",
        "May is a good month",
        "It is on Sille Ranch Street",
    ],
)
def test_no_gazetteer_name(text: str) -> None:
    assert found(names.find, text) == []


# --- the combination ----------------------------------------------------------------------------
def test_address_absorbs_model_pieces() -> None:
    text = "Ship to 125 S Church Street, East Stephanie."
    model = [RawEntity(8, 27, "ORG", 0.8), RawEntity(29, 43, "GPE", 0.9)]
    assert [(text[s.start : s.end], s.label) for s in pipeline.recognize(text, model)] == [
        ("125 S Church Street, East Stephanie", "ADDRESS")
    ]


def test_firm_replaces_model_people_and_name_replaces_model_org() -> None:
    text = "Regards,\nErmelinda Di Giacomo\nSenior Analyst, Carpentier et Dubois"
    model = [RawEntity(9, 18, "ORG", 0.8), RawEntity(46, 66, "PERSON", 0.86)]
    assert [(text[s.start : s.end], s.label) for s in pipeline.recognize(text, model)] == [
        ("Ermelinda Di Giacomo", "PERSON_GAZ"),
        ("Carpentier et Dubois", "ORG_FORM"),
    ]


def test_model_person_that_is_a_place() -> None:
    text = "Our office is in Den Haag now"
    spans = pipeline.recognize(text, [RawEntity(17, 25, "PERSON", 0.86)])
    assert [(text[s.start : s.end], s.label) for s in spans] == [("Den Haag", "GPE_GAZ")]


def test_place_after_preposition_and_alone_on_a_line() -> None:
    text = "Plant near Rotterdam\nRegards,\nJens\nHamburg"
    assert [(text[s.start : s.end], s.label) for s in pipeline.recognize(text, [])] == [
        ("Rotterdam", "GPE_GAZ"),
        ("Jens", "PERSON_GAZ"),  # the line after a closing (session 11, names.py rule 11)
        ("Hamburg", "GPE_GAZ"),
    ]


# --- the prompts through a real sidecar -------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Reply in JSON format",
        "Explain Kubernetes",
        "The plan costs 20 EUR per month",
        "Authorization: Bearer <token>",
        "INFO  server started on port 8080",
        "Load the config from config.yaml",
        "Salut, ça va ?",
    ],
)
def test_ordinary_prompts_have_no_entities(sidecar: Sidecar, text: str) -> None:
    request = urllib.request.Request(
        f"{sidecar.url}/v1/detect",
        data=json.dumps({"text": text}).encode(),
        headers={"Content-Type": "application/json", "X-Detector-API-Key": API_KEY},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert json.loads(response.read())["entities"] == []


def test_span_set_finds_every_overlap() -> None:
    spans = pipeline._SpanSet()  # the index recognize() relies on
    for start in range(0, 100, 10):
        spans.add(RawEntity(start, start + 5, "X", 1.0))
    assert [s.start for s in spans.overlapping(RawEntity(3, 22, "Y", 1.0))] == [20, 10, 0]
    assert spans.overlapping(RawEntity(5, 10, "Y", 1.0)) == []
    spans.remove(RawEntity(10, 15, "X", 1.0))
    assert [s.start for s in spans.overlapping(RawEntity(3, 22, "Y", 1.0))] == [20, 0]


def test_long_repetitive_input_is_handled_in_bounds() -> None:
    # 100,000 characters of candidates (the sidecar's limit): every greeting's name is found once,
    # and a long comma list of surnames is never one firm (the firm pattern is bounded).
    text = "Hi Paul, " * 11_000
    assert len(pipeline.recognize(text[:99_000], [])) == 11_000
    assert found(orgs.find, "Smith, Jones, " * 2_000) == []
