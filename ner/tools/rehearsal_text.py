#!/usr/bin/env python3
"""Texts for pseudo-rehearsal of the fine-tuned English `ner` (docs/ner.md, "Fine-tuned weights"):
what the ORIGINAL model already labels well, so that a fine-tune on synthetic names does not forget
it. ner/tools/train_ner.py labels these texts with the original model's own predictions; no label
is written here.

Sources (all from the hash-pinned ner/.venv, so the set is the same on every machine):
- `docs`: first paragraphs of module, class and function docstrings of the third-party packages
  installed from ner/requirements.lock (spaCy, thinc, numpy, pydantic, pygments, ...; never the
  Python standard library, whose docstrings made the held-out prompts), and the paragraphs of
  their package descriptions (READMEs) and licence files;
- `news`: news-like and narrative sentences in this file's own wording ("a report from X about Y",
  "by X", "about X", quotes, datelines, emoji before a name, headlines), filled with the people,
  organizations and places the original model itself finds in those documents, plus countries and
  large cities from the gazetteer (GeoNames). An entity goes to the `train` or the `check` family
  by a hash of its text, and the two families use different sentence frames, so `--family check`
  measures what a fine-tune forgets on entities and wordings it never rehearsed.

Usage (ner/.venv):
  ner/.venv/bin/python ner/tools/rehearsal_text.py --family train --news 4000 --docs 3000 --seed 3 \
      > rehearse.jsonl
  ner/.venv/bin/python ner/tools/rehearsal_text.py --family check --news 800 --docs 0 --seed 4 > forget.jsonl
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import random
import re
import sys
from email.parser import Parser
from importlib import metadata
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[2]
# Packages whose text is never used: the held-out corpora were made from Presidio and its
# evaluator's templates, Faker's en_US lists and package summaries; pip/setuptools are tooling.
SKIP_DISTS = re.compile(r"^(presidio|faker|pip|setuptools|wheel|veil)", re.I)
_WORD = re.compile(r"^[A-Z][\w'.&-]*$")
_CLEAN = re.compile(r"^[^\d_/\\<>{}\[\]()=:;|#*`\"@]+$")
_PARA = re.compile(r"\n\s*\n")

EMOJI = ["😀", "🎉", "📢", "🔥", "👍", "🙂", "✅", "⚠️", "📰", "🚀", "❤️", "👩🏽‍💻", "😂", "🌍"]

# Sentence frames: {P} person, {O} organization, {G} place. TRAIN and CHECK never share a frame.
TRAIN_FRAMES = [
    "Report from {P} about {O}.",
    "A message from {P} about the {G} office.",
    "Notes by {P} on the {O} merger.",
    "Written by {P}, edited by {P2}.",
    "{P} said on Tuesday that {O} would open a new office in {G}.",
    "{O} shares rose after {P} visited {G}.",
    "An interview with {P} about life in {G}.",
    "Breaking: {P} resigns from {O}",
    "{G} (Reuters) - {O} announced a new chief executive, {P}.",
    "According to {P}, {O} will cut jobs in {G} next year.",
    "Photo of {P} with {P2} in {G}",
    "{P} and {P2} met in {G} to discuss the deal with {O}.",
    "Thanks to {P} for the talk about {O}!",
    "Question for {P}: what does {O} plan in {G}?",
    "{P}: we are proud of the team at {O}.",
    "Here is a summary of the speech {P} gave in {G}.",
    "The book about {P} was published by {O} in {G}.",
    "{O} was founded in {G} by {P}.",
    "I read a story about {P} and {O} this morning.",
    "Can you summarize what {P} said about {G}?",
    "{P}",
    "{O}",
    "{G}",
    "From: {P}",
    "by {P}",
    "about {O}",
]
CHECK_FRAMES = [
    "Update from {P} regarding {O} and {G}.",
    "A column by {P} about the elections in {G}.",
    "{P} told reporters in {G} that {O} had no comment.",
    "Officials at {O} confirmed that {P} will travel to {G}.",
    "Letter to {P} from {P2}, sent from {G}.",
    "Who is {P} and why does {O} matter?",
    "{G}: {P} wins award from {O}",
    "Just saw {P} speak at {O} in {G}",
    "Summary of the meeting between {P} and {O} officials.",
    "{P} ({O})",
]


def dists():
    """Third-party distributions of this interpreter's environment, sorted by name."""
    out = {}
    for dist in metadata.distributions():
        name = dist.metadata.get("Name") or ""
        if name and not SKIP_DISTS.match(name):
            out[name.lower()] = dist
    return [out[name] for name in sorted(out)]


def paragraphs(text: str) -> list[str]:
    out = []
    for raw in _PARA.split(text):
        para = " ".join(raw.split())
        if 40 <= len(para) <= 600 and sum(c.isalpha() for c in para) > 0.6 * len(para):
            out.append(para)
    return out


def doc_texts(dist) -> list[str]:
    """Docstring first paragraphs, description and licence paragraphs of one distribution."""
    texts: list[str] = []
    meta = Parser().parsestr(str(dist.read_text("METADATA") or ""))
    body = meta.get_payload()
    if isinstance(body, str):
        texts += paragraphs(body)
    for file in sorted(dist.files or [], key=str):
        name = str(file)
        if re.search(r"(LICEN[CS]E|COPYING|AUTHORS)[^/]*$", name, re.I) and not name.endswith(".py"):
            try:
                texts += paragraphs(Path(dist.locate_file(file)).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
        elif name.endswith(".py") and "/tests/" not in name and "/test_" not in name:
            try:
                tree = ast.parse(Path(dist.locate_file(file)).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    doc = ast.get_docstring(node)
                    if doc:
                        texts += paragraphs(doc)[:1]
    return texts


def family_of(value: str) -> str:
    return "train" if hashlib.sha256(value.encode()).digest()[0] % 4 else "check"


_NAME_WORD = re.compile(r"^(?:[A-Z][a-zà-ÿ]+(?:[-'][A-Za-zà-ÿ]+)?|[A-Z]\.)$")
_CAMEL = re.compile(r"[a-z][A-Z]")


def clean_entity(label: str, value: str, terms: set[str]) -> bool:
    """Entity text as prose writes it: no code identifiers, no technical terms; people with a
    first and a last name."""
    words = value.split()
    if not (1 <= len(words) <= 4 and _CLEAN.match(value) and all(_WORD.match(w) for w in words)):
        return False
    if any(w.lower() in terms for w in words) or _CAMEL.search(value):
        return False
    if label == "PERSON":
        return 2 <= len(words) <= 3 and all(_NAME_WORD.match(w) for w in words)
    return True


def tech_terms() -> set[str]:
    path = ROOT / "ner/src/veil_ner/data/tech_terms.txt"
    return {line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines() if line[:1] != "#"}


# A neutral sentence per label: a candidate is kept only when the original model labels it there
# as a whole, with that label (documents name code objects the model takes for people or firms).
PROBES = {
    "PERSON": "Yesterday {} said that the meeting went well.",
    "ORG": "Shares of {} fell after the company reported a loss.",
    "GPE": "The conference will take place in {} next spring.",
}


def known(nlp, label: str, values: list[str]) -> list[str]:
    """The values the original model recognizes as `label` in PROBES[label]."""
    frame = PROBES[label]
    at = frame.index("{}")
    kept = []
    for value, doc in zip(values, nlp.pipe([frame.format(v) for v in values], batch_size=128), strict=True):
        if any(e.label_ == label and e.start_char == at and e.end_char == at + len(value) for e in doc.ents):
            kept.append(value)
    return kept


def harvest(nlp, texts: list[str]) -> dict[str, list[str]]:
    """People, organizations and places the original model finds in the documents and knows."""
    found: dict[str, set[str]] = {"PERSON": set(), "ORG": set(), "GPE": set()}
    terms = tech_terms()
    for doc in nlp.pipe(texts, batch_size=64):
        for ent in doc.ents:
            if ent.label_ in found and clean_entity(ent.label_, ent.text, terms):
                found[ent.label_].add(ent.text)
    return {label: known(nlp, label, sorted(values)) for label, values in found.items()}


def big_places() -> list[str]:
    """Place names of the gazetteer (GeoNames cities of 15,000+ and countries), title-cased as
    written in prose (the list itself is lower case)."""
    path = ROOT / "ner/src/veil_ner/data/places.txt"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and len(line) > 3 and "-" not in line:
            out.append(line.title())
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--family", choices=("train", "check"), required=True)
    parser.add_argument("--news", type=int, default=4000, help="news-like sentences")
    parser.add_argument("--docs", type=int, default=3000, help="document paragraphs (train only)")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)  # noqa: S311 - reproducible sampling, not a secret
    from train_ner import load_pipeline  # noqa: PLC0415 - spaCy loads after argument parsing

    nlp = load_pipeline()
    texts: list[str] = []
    for dist in dists():
        texts += doc_texts(dist)
    texts = sorted(set(texts))
    print(f"document paragraphs: {len(texts)}", file=sys.stderr)
    entities = harvest(nlp, texts)
    places = [p for p in big_places() if family_of(p) == args.family]
    pools = {label: [v for v in values if family_of(v) == args.family] for label, values in entities.items()}
    places = known(nlp, "GPE", rng.sample(places, min(len(places), 3000)))
    pools["GPE"] = sorted(set(pools["GPE"]) | set(places))
    print({label: len(values) for label, values in pools.items()}, file=sys.stderr)
    frames = TRAIN_FRAMES if args.family == "train" else CHECK_FRAMES
    out = []
    if args.family == "train" and args.docs:
        out += [{"text": t, "source": "docs"} for t in rng.sample(texts, min(args.docs, len(texts)))]
    for _ in range(args.news):
        people = rng.sample(pools["PERSON"], 2)
        text = rng.choice(frames).format(
            P=people[0], P2=people[1], O=rng.choice(pools["ORG"]), G=rng.choice(pools["GPE"])
        )
        if rng.random() < 0.15:
            text = f"{rng.choice(EMOJI)} {text}"
        elif rng.random() < 0.05:
            text = text.upper()
        out.append({"text": text, "source": "news"})
    for record in out:
        print(json.dumps(record, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
