#!/usr/bin/env python3
"""Write data/heldout-spacy-examples.jsonl: the example sentences spaCy ships per language.

Source: `spacy.lang.<xx>.examples.sentences` of spaCy 3.8 (MIT licence; the sentences the spaCy
project wrote to try its pipelines, mostly news headlines and questions) for the seven languages
the sidecar reads: en, de, fr, es, it, pt, nl. The text is theirs, unchanged; the labels are
ours, written by hand in LABELS below (value and type per sentence, every mention), before any
rule of the NER pipeline was run on them. Person, organization and location (countries, cities
and regions); nationality adjectives ("Schweizer", "anglaise") and products ("HomePod", "Echo")
are no entity. A sentence LABELS does not list is a negative.

Split (fixed): even positions of the sorted (language, position) list are `dev`, odd are `test`.

Usage: ner/.venv/bin/python tools/ner-heldout/spacy_examples.py > data/heldout-spacy-examples.jsonl
"""

from __future__ import annotations

import importlib
import json
import sys

LANGS = ("en", "de", "fr", "es", "it", "pt", "nl")
P, ORG, L = "person", "organization", "location"
LABELS: dict[str, list[tuple[str, str]]] = {
    "Apple is looking at buying U.K. startup for $1 billion": [("Apple", ORG), ("U.K.", L)],
    "San Francisco considers banning sidewalk delivery robots": [("San Francisco", L)],
    "London is a big city in the United Kingdom.": [("London", L), ("United Kingdom", L)],
    "Who is the president of France?": [("France", L)],
    "What is the capital of the United States?": [("United States", L)],
    "When was Barack Obama born?": [("Barack Obama", P)],
    "Die ganze Stadt ist ein Startup: Shenzhen ist das Silicon Valley für Hardware-Firmen": [
        ("Shenzhen", L),
        ("Silicon Valley", L),
    ],
    "Trend zum Urlaub in Deutschland beschert Gastwirten mehr Umsatz": [("Deutschland", L)],
    "Bundesanwaltschaft erhebt Anklage gegen mutmaßlichen Schweizer Spion": [("Bundesanwaltschaft", ORG)],
    "San Francisco erwägt Verbot von Lieferrobotern": [("San Francisco", L)],
    "Was ist die Hauptstadt von Deutschland?": [("Deutschland", L)],
    "Apple cherche à acheter une start-up anglaise pour 1 milliard de dollars": [("Apple", ORG)],
    "San Francisco envisage d'interdire les robots coursiers sur les trottoirs": [("San Francisco", L)],
    "Londres est une grande ville du Royaume-Uni": [("Londres", L), ("Royaume-Uni", L)],
    "L\u2019Italie choisit ArcelorMittal pour reprendre la plus grande aciérie d\u2019Europe": [
        ("Italie", L),
        ("ArcelorMittal", ORG),
        ("Europe", L),
    ],
    "Apple lance HomePod parce qu'il se sent menacé par l'Echo d'Amazon": [("Apple", ORG), ("Amazon", ORG)],
    "La France ne devrait pas manquer d'électricité cet été, même en cas de canicule": [("France", L)],
    "Nouvelles attaques de Trump contre le maire de Londres": [("Trump", P), ("Londres", L)],
    "Qui est le président de la France ?": [("France", L)],
    "Où est la capitale des États-Unis ?": [("États-Unis", L)],
    "Quand est né Barack Obama ?": [("Barack Obama", P)],
    "Apple está buscando comprar una startup del Reino Unido por mil millones de dólares.": [
        ("Apple", ORG),
        ("Reino Unido", L),
    ],
    "San Francisco analiza prohibir los robots de reparto.": [("San Francisco", L)],
    "Londres es una gran ciudad del Reino Unido.": [("Londres", L), ("Reino Unido", L)],
    "¿Dónde se encuentra la capital de Argentina?": [("Argentina", L)],
    "¿Cuándo nació José de San Martín?": [("José de San Martín", P)],
    "Apple vuole comprare una startup del Regno Unito per un miliardo di dollari": [
        ("Apple", ORG),
        ("Regno Unito", L),
    ],
    "San Francisco prevede di bandire i robot di consegna porta a porta": [("San Francisco", L)],
    "Londra è una grande città del Regno Unito.": [("Londra", L), ("Regno Unito", L)],
    "Apple está querendo comprar uma startup do Reino Unido por 100 milhões de dólares": [
        ("Apple", ORG),
        ("Reino Unido", L),
    ],
    "Carros autônomos empurram a responsabilidade do seguro para os fabricantes."
    "São Francisco considera banir os robôs de entrega que andam pelas calçadas": [("São Francisco", L)],
    "Londres é a maior cidade do Reino Unido": [("Londres", L), ("Reino Unido", L)],
    "Apple overweegt om voor 1 miljard een U.K. startup te kopen": [("Apple", ORG), ("U.K.", L)],
    "San Francisco overweegt robots op voetpaden te verbieden": [("San Francisco", L)],
    "Londen is een grote stad in het Verenigd Koninkrijk": [("Londen", L), ("Verenigd Koninkrijk", L)],
}


def records() -> list[dict]:
    rows: list[dict] = []
    seen: set[str] = set()
    for lang in LANGS:
        sentences = importlib.import_module(f"spacy.lang.{lang}.examples").sentences
        for n, text in enumerate(sentences):
            ents = []
            for value, kind in LABELS.get(text, []):
                at = text.index(value)
                ents.append({"type": kind, "start": at, "end": at + len(value)})
            seen.add(text)
            rows.append(
                {
                    "id": f"spacy-{lang}-{n:02d}",
                    "lang": lang,
                    "source": f"spacy.lang.{lang}.examples",
                    "text": text,
                    "negative": not ents,
                    "entities": sorted(ents, key=lambda e: e["start"]),
                }
            )
    missing = set(LABELS) - seen
    if missing:
        raise SystemExit(f"labelled sentences not in this spaCy: {len(missing)}")
    for i, row in enumerate(rows):
        row["split"] = "dev" if i % 2 == 0 else "test"
    return rows


def main() -> None:
    for row in records():
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
