#!/usr/bin/env python3
"""Generate data/heldout-ordinary-prompts.jsonl: 1,000 ordinary prompts that hold no personal data.

The negative half of the NER held-out evaluation: technical questions, product names, code,
greetings and instructions, on which a good detector changes nothing. Sources are chosen to be
disjoint from the word lists the sidecar's filter uses (Pygments lexers, trove classifiers,
GeoNames, closed classes in ner/src/veil_ner/gazetteer.py):

- 350 product prompts: the `description` of npm packages installed in node_modules (pinned by
  package-lock.json), each wrapped in a question ("I'm evaluating Fastify: ... Is it a good fit?");
  the package name is capitalized as people write product names;
- 300 technical questions: first sentences of Python standard-library docstrings (the running
  interpreter's, functions and classes of 60 common modules), asked as "Explain this: ...";
- 200 code prompts: 4-10 line windows of standard-library Python and of npm JavaScript sources,
  asked as "Why does this fail?" with a fenced block;
- 150 chat turns: hand-written greetings, thanks and instructions in en, de, fr, es, it, pt, nl
  ("Reply in JSON format", "Explain Kubernetes", "Salut, ça va ?"), combined with product names
  from the first group.

Deterministic for a given node_modules and Python version (seed 7). Records carry `negative: true`
and no entities. Usage: python3 tools/ner-heldout/ordinary_prompts.py [--out PATH]
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STDLIB_MODULES = (
    "argparse asyncio base64 bisect calendar collections concurrent.futures configparser contextlib copy csv "
    "dataclasses datetime decimal difflib email enum fractions functools gzip hashlib heapq hmac html http.client "
    "http.server importlib inspect io ipaddress itertools json logging math mimetypes multiprocessing operator "
    "os pathlib pickle pprint queue random re secrets shlex shutil socket sqlite3 ssl statistics string struct "
    "subprocess tarfile tempfile textwrap threading time timeit tomllib typing unittest urllib.parse uuid zipfile"
).split()
PRODUCT_TEMPLATES = (
    "I'm evaluating {name} for our project. The docs say: \"{desc}\" Is it a good fit for a small team?",
    "What does {name} do exactly? Its description is \"{desc}\"",
    "Can you compare {name} with the alternatives? ({desc})",
    "We use {name} in production. {desc} How do I upgrade it safely?",
    "Is {name} still maintained? It says: {desc}",
)
DOC_TEMPLATES = (
    "Explain this in simple terms: {doc}",
    "What does this mean? \"{doc}\"",
    "Can you give me an example for this: {doc}",
    "In Python, {doc_lower} How would I use that?",
)
CODE_TEMPLATES = (
    "Why does this fail?\n```{lang}\n{code}\n```",
    "Can you review this {lang} code?\n\n{code}",
    "Refactor this please:\n```{lang}\n{code}\n```",
)
CHAT = (
    "Hi! How are you today?",
    "Hello, can you help me with something?",
    "Thanks, that worked perfectly.",
    "Good morning! Quick question about {name}.",
    "Reply in JSON format.",
    "Reply in JSON format with the fields name and version.",
    "Explain Kubernetes like I'm five.",
    "Explain {name} in two sentences.",
    "Summarize the following text in three bullet points.",
    "Translate this into German: the build failed again.",
    "Write a haiku about {name}.",
    "Please answer in Markdown.",
    "What's the difference between {name} and {name2}?",
    "Give me a list of five ideas for a weekend project with {name}.",
    "Act as a senior engineer and review my approach.",
    "Can you convert this to TypeScript?",
    "Hallo! Kannst du mir bei {name} helfen?",
    "Danke, das hat funktioniert.",
    "Erkläre mir bitte {name}.",
    "Guten Morgen, wie geht's?",
    "Salut, ça va ?",
    "Bonjour ! Peux-tu m'expliquer {name} ?",
    "Merci beaucoup, c'est parfait.",
    "Réponds en JSON, s'il te plaît.",
    "Hola, ¿me ayudas con {name}?",
    "Gracias, funciona.",
    "Explícame {name} de forma sencilla.",
    "Buenos días, ¿qué tal?",
    "Ciao! Mi spieghi {name}?",
    "Grazie mille, funziona.",
    "Rispondi in formato JSON.",
    "Olá, tudo bem?",
    "Obrigado, resolveu o problema.",
    "Explique {name} em poucas palavras.",
    "Hoi, kun je me helpen met {name}?",
    "Bedankt, het werkt nu.",
    "Leg {name} uit in eenvoudige woorden.",
    "INFO: build finished in 42s. Is that normal for {name}?",
    "The price is 20 EUR per month. Is {name} worth it?",
    "My config uses a Bearer token for {name}. Is that secure?",
)


def npm_packages() -> list[tuple[str, str]]:
    out = []
    for manifest in sorted((ROOT / "node_modules").glob("**/package.json")):
        if manifest.parent.parent.name not in ("node_modules",) and not manifest.parent.parent.name.startswith("@"):
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        name, desc = data.get("name"), data.get("description")
        if isinstance(name, str) and isinstance(desc, str) and 20 <= len(desc) <= 300 and "\n" not in desc:
            out.append((name, desc.strip()))
    return sorted(set(out))


def product_name(package: str) -> str:
    base = package.split("/")[-1]
    return "".join(part.capitalize() for part in re.split(r"[-_.]", base) if part) or base


def docstrings() -> list[str]:
    out = []
    for module_name in STDLIB_MODULES:
        module = importlib.import_module(module_name)
        for _name, member in sorted(vars(module).items()):
            if not (inspect.isfunction(member) or inspect.isclass(member)) or member.__module__ != module.__name__:
                continue
            doc = inspect.getdoc(member) or ""
            first = re.split(r"(?<=\.)\s", doc.strip().split("\n\n")[0].replace("\n", " "))[0]
            if 25 <= len(first) <= 200:
                out.append(first)
    return sorted(set(out))


def code_windows(rng: random.Random) -> list[tuple[str, str]]:
    py_files = sorted(Path(inspect.getfile(json)).parent.parent.glob("*.py"))
    js_files = sorted(p for p in (ROOT / "node_modules").glob("*/lib/*.js") if p.stat().st_size < 200_000)
    out = []
    for lang, files in (("python", py_files), ("javascript", js_files)):
        for path in rng.sample(files, min(200, len(files))):
            lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
            if len(lines) < 12:
                continue
            size = rng.randint(4, 10)
            start = rng.randrange(0, len(lines) - size)
            window = "\n".join(lines[start : start + size])
            if "#" in window and lang == "python" and "author" in window.lower():
                continue  # module headers naming their authors are not ordinary prompts
            out.append((lang, window))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "data/heldout-ordinary-prompts.jsonl"))
    args = parser.parse_args()
    rng = random.Random(7)
    packages = npm_packages()
    prompts: list[tuple[str, str]] = []
    for name, desc in rng.sample(packages, 350):
        prompts.append(("product", rng.choice(PRODUCT_TEMPLATES).format(name=product_name(name), desc=desc)))
    for doc in rng.sample(docstrings(), 300):
        template = rng.choice(DOC_TEMPLATES)
        prompts.append(("docs", template.format(doc=doc, doc_lower=doc[0].lower() + doc[1:])))
    windows = code_windows(rng)
    for lang in ("python", "javascript"):
        for _, code in rng.sample([w for w in windows if w[0] == lang], 100):
            prompts.append(("code", rng.choice(CODE_TEMPLATES).format(lang=lang, code=code)))
    names = [product_name(name) for name, _ in packages]
    for index in range(150):
        template = CHAT[index % len(CHAT)]
        prompts.append(("chat", template.format(name=rng.choice(names), name2=rng.choice(names))))
    records = [
        {"id": f"op-{i}", "lang": "en", "domain": kind, "negative": True, "text": text, "entities": []}
        for i, (kind, text) in enumerate(prompts)
    ]
    Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"{args.out}: {len(records)} records")


if __name__ == "__main__":
    main()
