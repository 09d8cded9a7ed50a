#!/usr/bin/env python3
"""Generate 1,000 ordinary prompts that hold no personal data, in two disjoint splits:
data/dev-ordinary-prompts.jsonl (`--split dev`, looked at while developing the filter) and
data/heldout-ordinary-prompts.jsonl (`--split test`, held out: only its totals are read).

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
  from the first group; the test split has its own list (CHAT_TEST), written before any system
  was run on it.

The test split draws only packages, docstrings and code windows the dev split did not use.
Deterministic for a given node_modules and Python version (seeds 7 and 8). Records carry
`negative: true` and no entities. Usage: python3 tools/ner-heldout/ordinary_prompts.py --split dev|test
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
import json
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STDLIB_MODULES = [
    "argparse",
    "asyncio",
    "base64",
    "bisect",
    "calendar",
    "collections",
    "concurrent.futures",
    "configparser",
    "contextlib",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "email",
    "enum",
    "fractions",
    "functools",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http.client",
    "http.server",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "logging",
    "math",
    "mimetypes",
    "multiprocessing",
    "operator",
    "os",
    "pathlib",
    "pickle",
    "pprint",
    "queue",
    "random",
    "re",
    "secrets",
    "shlex",
    "shutil",
    "socket",
    "sqlite3",
    "ssl",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "tarfile",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "timeit",
    "tomllib",
    "typing",
    "unittest",
    "urllib.parse",
    "uuid",
    "zipfile",
]
PRODUCT_TEMPLATES = (
    'I\'m evaluating {name} for our project. The docs say: "{desc}" Is it a good fit for a small team?',
    'What does {name} do exactly? Its description is "{desc}"',
    "Can you compare {name} with the alternatives? ({desc})",
    "We use {name} in production. {desc} How do I upgrade it safely?",
    "Is {name} still maintained? It says: {desc}",
)
DOC_TEMPLATES = (
    "Explain this in simple terms: {doc}",
    'What does this mean? "{doc}"',
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

CHAT_TEST = (
    "Hey there, quick question.",
    "Good evening! Can you help me debug something?",
    "Cheers, that fixed it.",
    "Hi, what's new in {name}?",
    "Respond only with valid JSON.",
    "Output the result as YAML.",
    "Explain Docker networking briefly.",
    "Describe {name} for a beginner.",
    "List the pros and cons of {name}.",
    "Write unit tests for this function.",
    "Translate to French: the deployment is scheduled for tomorrow.",
    "Summarize this changelog for {name}.",
    "How do {name} and {name2} compare on performance?",
    "Generate a README section for {name}.",
    "Pretend you are a code reviewer and be strict.",
    "Can you rewrite this in Go?",
    "Servus! Wie installiere ich {name}?",
    "Vielen Dank für die Hilfe!",
    "Schreib mir ein Beispiel mit {name}.",
    "Guten Abend, alles klar?",
    "Coucou, tu peux m'aider ?",
    "Bonsoir, comment configurer {name} ?",
    "Merci, ça marche maintenant.",
    "Donne-moi un exemple en Python.",
    "Buenas tardes, ¿cómo uso {name}?",
    "Muchas gracias por la ayuda.",
    "Escribe un ejemplo con {name}.",
    "Buongiorno, come si configura {name}?",
    "Grazie, tutto risolto.",
    "Scrivi un esempio in JavaScript.",
    "Bom dia, como uso {name}?",
    "Muito obrigado!",
    "Escreva um exemplo com {name}.",
    "Goedemorgen, hoe installeer ik {name}?",
    "Dank je wel, opgelost.",
    "Schrijf een voorbeeld met {name}.",
    "WARN: disk usage at 91%. What should I do about {name}?",
    "It costs 15 USD a month. Is {name} worth it?",
    "The API expects an Authorization header with a Bearer token. How do I set it in {name}?",
    "DEBUG logs are too noisy in {name}. How do I turn them off?",
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


def python_packages() -> list[tuple[str, str]]:
    """Name and summary of the Python distributions installed beside this interpreter."""
    out = []
    for dist in importlib.metadata.distributions():
        name, summary = dist.metadata["Name"], dist.metadata["Summary"]
        if name and summary and 20 <= len(summary) <= 300:
            out.append((name, summary.strip()))
    return sorted(set(out))


def build(seed: int, exclude: set[str], chat: tuple[str, ...], test: bool = False) -> list[tuple[str, str]]:
    """One split; `exclude` holds the package names, docstrings and code windows already used.
    The dev split takes 350 npm packages; the test split the rest of them plus the summaries of
    the Python distributions installed beside the interpreter, and more docstrings to reach 1,000."""
    rng = random.Random(seed)
    packages = [p for p in npm_packages() if p[0] not in exclude]
    products = packages + python_packages() if test else rng.sample(packages, 350)
    prompts: list[tuple[str, str]] = []
    for name, desc in products:
        exclude.add(name)
        prompts.append(("product", rng.choice(PRODUCT_TEMPLATES).format(name=product_name(name), desc=desc)))
    docs = [d for d in docstrings() if d not in exclude]
    for doc in rng.sample(docs, min(len(docs), 300 if not test else 1000 - 350 - len(products))):
        exclude.add(doc)
        template = rng.choice(DOC_TEMPLATES)
        prompts.append(("docs", template.format(doc=doc, doc_lower=doc[0].lower() + doc[1:])))
    windows = [w for w in code_windows(rng) if w[1] not in exclude]
    code_count = (1000 - 150 - len(prompts)) // 2
    for lang in ("python", "javascript"):
        for _, code in rng.sample([w for w in windows if w[0] == lang], code_count):
            exclude.add(code)
            prompts.append(("code", rng.choice(CODE_TEMPLATES).format(lang=lang, code=code)))
    names = [product_name(name) for name, _ in packages]
    for index in range(1000 - len(prompts)):
        template = chat[index % len(chat)]
        prompts.append(("chat", template.format(name=rng.choice(names), name2=rng.choice(names))))
    return prompts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    args = parser.parse_args()
    used: set[str] = set()
    prompts = build(7, used, CHAT)
    out = ROOT / "data/dev-ordinary-prompts.jsonl"
    if args.split == "test":
        prompts = build(8, used, CHAT_TEST, test=True)
        out = ROOT / "data/heldout-ordinary-prompts.jsonl"
    records = [
        {"id": f"op-{i}", "lang": "en", "domain": kind, "negative": True, "text": text, "entities": []}
        for i, (kind, text) in enumerate(prompts)
    ]
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"{out}: {len(records)} records")


if __name__ == "__main__":
    main()
