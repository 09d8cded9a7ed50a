#!/usr/bin/env python3
"""Write data/own-ordinary-prompts.jsonl: ordinary prompts without personal data, from sources
that tools/ner-heldout/ordinary_prompts.py does not use (it draws npm package descriptions, Python
standard-library docstrings and code, and its own chat lines), so the name pipeline's false
positives can be counted by class without tuning on the held-out prompts (docs/ner.md, "Tuning
without the test split").

Classes (the `domain` field), each drawn from this machine's installed data:
- `package`: a Debian package's short and first long-description sentence (/var/lib/dpkg/status),
  asked about in a question frame of this file ("Do I need libgail-common on a server? ...");
- `command`: the NAME line of a manual page (/usr/share/man/man1 and man8, and the de, fr, es, it,
  nl and pt translations), asked as a how-to;
- `heading`: a Markdown heading and the sentence after it from /usr/share/doc/**/*.md, asked as
  an editing request ("Rewrite this section: ## Building from source ...");
- `identifier`: a CamelCase class name defined in the sidecar venv's third-party Python code
  (ast, not docstrings), opening the sentence or in backticks ("ConnectionPool keeps timing out");
- `imperative`: sentence-initial verbs that are also first names (Mark, Bill, Grant, Sue, ...)
  in instructions written here;
- `title`: titles of works without a person's name (books, standards, talks) written here.
Prompts holding an e-mail address, a URL, "by"/"author"/"maintainer"/"copyright" or a person the
package credits are skipped, so every detection on this set is a false positive.

Deterministic for one machine image (seed 9). Usage:
  ner/.venv/bin/python ner/tools/own_ordinary.py > data/own-ordinary-prompts.jsonl
"""

from __future__ import annotations

import ast
import gzip
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = re.compile(r"@|https?://|www\.|\b(?:by|authors?|maintainers?|copyright|written|thanks)\b", re.I)

PACKAGE_FRAMES = [
    "Do I need {name} on a headless server? apt says: {short}. {long}",
    'What is {name} for? The description reads: "{short}". {long}',
    "Can I remove {name} safely? It is described as {short}.",
    "{long} That's from the {name} package. Is it pulled in by default?",
    "Our image installs {name} ({short}). Should we pin its version?",
]
COMMAND_FRAMES = [
    "How do I use {cmd}? The man page says: {desc}.",
    "Give me three examples of {cmd} ({desc}).",
    "{cmd}: {desc}. What are the most common flags?",
    "Was macht {cmd}? Laut Handbuch: {desc}.",
    "Explique-moi {cmd} : {desc}.",
]
HEADING_FRAMES = [
    "Rewrite this section so it is shorter:\n\n## {heading}\n\n{body}",
    'Translate the heading "{heading}" and the first line: {body}',
    'Is this a good README section title? "{heading}"',
    "# {heading}\n\n{body}\n\nCan you fix the grammar?",
]
IDENTIFIER_FRAMES = [
    "{ident} keeps raising after the upgrade. What changed?",
    "Why does `{ident}` need a context manager?",
    "Should I subclass {ident} or wrap it?",
    "{ident} is slow on large inputs; how do I profile it?",
    "Mock {ident} in a pytest fixture, please.",
]
IMPERATIVES = [
    "Mark the failing tests as expected failures and rerun the suite.",
    "Bill the client for the extra hours in the next invoice run.",
    "Grant read access to the reporting role only.",
    "Sue the vendor? No, just escalate the ticket to their support.",
    "Rob the cache of stale entries before the benchmark starts.",
    "Pat the dough flat and chill it for an hour; what temperature should the oven be?",
    "Will the migration lock the table while it runs?",
    "Jack up the timeout to 60 seconds and try again.",
    "Frank answers only: is this architecture overkill for a blog?",
    "Chase down why the nightly build is red.",
    "Drew up a plan for the rollout yesterday; can you review it?",
    "Wade through these logs and tell me what failed first.",
    "Pierce the abstraction: what does the ORM actually send?",
    "Lance the boil on our pipeline: the flaky integration step.",
    "Carol singers are outside; unrelated, but how do I silence my phone?",
    "Page the on-call engineer if the error rate doubles.",
    "Ray tracing or rasterization for a small indie game?",
    "Gene expression data: which normalisation should I use?",
    "Hunter-gatherer diets: summarise the evidence in five bullet points.",
    "Skip the intro and show me the code.",
    "Summarize the release notes in three bullets.",
    "Translate this paragraph into Spanish and keep the markdown.",
    "List every breaking change between the two major versions.",
    "Draft a polite reply declining the meeting.",
    "Review this pull request for thread-safety issues.",
    "Sketch a schema for orders, line items and refunds.",
    "Convert this CSV header to snake_case column names.",
    "Rename the Helm release without downtime, if possible.",
    "Refactor the Payment Gateway module into smaller services.",
    "Outline a talk called Scaling Postgres Reads for a meetup.",
    "Compare Terraform Cloud with Spacelift for a small team.",
    "Plan a Sprint Review agenda for a remote team.",
    "Estimate the Story Points for this ticket.",
    "Benchmark Redis Streams against Kafka for 10k messages per second.",
    "Check whether Dependabot Alerts cover transitive packages.",
    "Enable Branch Protection on main and require two reviews.",
    "Write a Code of Conduct section for the contributing guide.",
    "Explain the Single Responsibility Principle with an example.",
    "Open Issues older than a year: close or keep?",
    "Merge Requests in GitLab versus Pull Requests in GitHub: any real difference?",
]
TITLES = [
    "Summarize The Pragmatic Programmer in ten lines.",
    "Is Clean Architecture still worth reading in 2025?",
    "What does Structure and Interpretation of Computer Programs teach that newer books don't?",
    "Give me the main ideas of Designing Data-Intensive Applications.",
    "I just finished The Mythical Man-Month. What should I read next?",
    "Recommend chapters of Site Reliability Engineering for a new on-call engineer.",
    "Quote the key point of Accelerate about deployment frequency.",
    "Is Working Effectively with Legacy Code relevant for Python?",
    "Explain RFC 9110 HTTP Semantics in plain words.",
    "What changed between the Twelve-Factor App and its later critiques?",
    "Make a study plan from Introduction to Algorithms, chapters 1-10.",
    "Compare Domain-Driven Design with Implementing Domain-Driven Design.",
    "Which exercises in Crafting Interpreters are hardest?",
    "Summarise the talk Simple Made Easy.",
    "Is The Phoenix Project a good gift for a new manager?",
    "What is the plot of The Hitchhiker's Guide to the Galaxy, briefly?",
    "Explain the ending of Blade Runner without spoilers for the sequel.",
    "Why is Pride and Prejudice considered a comedy of manners?",
    "Summarize Thinking, Fast and Slow for an engineering audience.",
    "What are the themes of Brave New World?",
    "Is The Art of Computer Programming readable without a maths degree?",
    "Give me discussion questions for The Left Hand of Darkness.",
    "What does the OWASP Top Ten list first?",
    "Explain the Agile Manifesto's four values.",
    "What is in the Web Content Accessibility Guidelines 2.2?",
    "Outline the Unix Philosophy as described in The Art of Unix Programming.",
    "Is Refactoring, second edition, JavaScript-only?",
    "What is the difference between The C Programming Language first and second edition?",
    "Summarise the Rust Book's chapter on ownership.",
    "How long is the audiobook of Project Hail Mary?",
]


def sentences(text: str) -> str:
    """The first sentence of a paragraph, one line."""
    flat = " ".join(text.split())
    match = re.match(r"(.{20,220}?[.!?])(?:\s|$)", flat)
    return match.group(1) if match else ""


def packages() -> list[dict]:
    out = []
    status = Path("/var/lib/dpkg/status").read_text(encoding="utf-8", errors="replace")
    for record in status.split("\n\n"):
        name = re.search(r"^Package: (\S+)$", record, re.M)
        desc = re.search(r"^Description: (.*)\n((?: .*\n?)*)", record, re.M)
        if not name or not desc:
            continue
        long = sentences(" ".join(line.strip() for line in desc.group(2).splitlines() if line.strip() != "."))
        out.append({"name": name.group(1), "short": desc.group(1).strip(), "long": long})
    return out


_NAME_SECTION = re.compile(r"^\.SH\s+\"?(?:NAME|NOM|NOMBRE|NOME|NAAM)\"?\s*\n(.*?)\n\.S[HS]", re.M | re.S)


def commands() -> list[dict]:
    out = []
    base = Path("/usr/share/man")
    for folder in ["man1", "man8", *(f"{lang}/man1" for lang in ("de", "fr", "es", "it", "nl", "pt"))]:
        for page in sorted((base / folder).glob("*.gz")):
            try:
                raw = gzip.decompress(page.read_bytes()).decode("utf-8", errors="replace")
            except (OSError, EOFError):
                continue
            match = re.search(
                r"^\.SH\s+\"?(?:NAME|NOM|NOMBRE|NOME|NAAM)\"?\s*\n(.*?)\n\.S[HS]", raw, re.M | re.S
            )
            if not match:
                continue
            line = re.sub(r"\\f[BIRP]|\\\(em|\\\(en|\\&", "", " ".join(match.group(1).split()))
            line = line.replace("\\-", "-").replace("\\", "")
            parts = re.split(r"\s+-+\s+", line, maxsplit=1)
            if len(parts) == 2 and not parts[0].startswith("."):
                out.append({"cmd": parts[0].split(",")[0].strip(), "desc": parts[1].strip().rstrip(".")})
    return out


def headings() -> list[dict]:
    out = []
    for path in sorted(Path("/usr/share/doc").rglob("*.md*")):
        try:
            raw = path.read_bytes()
            text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8", errors="replace")
        except (OSError, EOFError):
            continue
        for match in re.finditer(r"(?m)^#{1,3}[ \t]+([^\n#]{4,60})\n+([^\n#`|<>\[].{20,})$", text):
            body = sentences(match.group(2))
            if body:
                out.append({"heading": match.group(1).strip(), "body": body})
    return out


def identifiers() -> list[dict]:
    site = next((ROOT / "ner/.venv/lib").glob("python3*/site-packages"))
    found: set[str] = set()
    for path in sorted(site.rglob("*.py")):
        if "/tests/" in str(path) or "/test/" in str(path):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and re.fullmatch(r"(?:[A-Z][a-z]+){2,3}", node.name):
                found.add(node.name)
    return [{"ident": name} for name in sorted(found)]


def main() -> int:
    rng = random.Random(9)  # noqa: S311 - a reproducible sample, not a secret
    records: list[tuple[str, str]] = []

    def take(domain: str, items: list[dict], frames: list[str], count: int) -> None:
        pool = [item for item in items if not SKIP.search(" ".join(item.values()))]
        for item in rng.sample(pool, min(count, len(pool))):
            frame = rng.choice(frames)
            if "{long}" in frame and not item.get("long"):
                frame = PACKAGE_FRAMES[2]
            records.append((domain, frame.format(**item)))

    take("package", packages(), PACKAGE_FRAMES, 110)
    take("command", commands(), COMMAND_FRAMES, 90)
    take("heading", headings(), HEADING_FRAMES, 60)
    take("identifier", identifiers(), IDENTIFIER_FRAMES, 60)
    records.extend(("imperative", text) for text in IMPERATIVES)
    records.extend(("title", text) for text in TITLES)
    for index, (domain, text) in enumerate(records):
        record = {"id": f"own-ord-{index}", "domain": domain, "negative": True, "text": text, "entities": []}
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
