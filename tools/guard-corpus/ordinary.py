#!/usr/bin/env python3
"""Ordinary assistant answers for the output-guard precision corpus: data/guard-ordinary.jsonl.

Four sources, none of them derived from Veil's detectors or the guard's rules:
  handwritten  tools/guard-corpus/handwritten.txt, answers written by hand (see its header);
  npm          README sections of the packages installed under node_modules (real text of real
               projects: installation steps, URLs, versions, code, tables);
  python       docstrings of the Python packages in the NER sidecar's venv (ner/.venv);
  templated    answer templates in several styles filled with public release facts (name,
               version, date, documentation URL) listed below by hand.

README sections about people (license, authors, contributors, sponsors, maintainers) and any
section or docstring holding an e-mail address are left out: authors' personal addresses are
personal data, not ordinary answers (the leak corpus covers personal addresses). Deterministic:
files are visited in sorted order and sampled with a fixed seed. Usage:
  python3 tools/guard-corpus/ordinary.py   (from the repository root; stdlib only)
"""

import ast
import json
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "data" / "guard-ordinary.jsonl"
HANDWRITTEN = ROOT / "tools" / "guard-corpus" / "handwritten.txt"

MIN_CHARS = 160
MAX_CHARS = 2400
NPM_PER_PACKAGE = 2
NPM_TOTAL = 230
PYTHON_TOTAL = 150

EMAIL_LIKE = re.compile(r"[^\s<>()\"']+@[^\s<>()\"']+\.[A-Za-z]{2,}")
SKIP_HEADINGS = re.compile(
    r"licen[cs]e|author|contributor|maintainer|sponsor|backer|team|people|thank|credit|donat|support us|funding", re.I
)


def clean(text):
    return text.strip("\n").rstrip()


def handwritten():
    body = HANDWRITTEN.read_text(encoding="utf-8")
    body = re.sub(r"^<!--.*?-->\n", "", body, flags=re.S)
    parts = [clean(part) for part in re.split(r"^%%%$", body, flags=re.M)]
    return [{"source": "handwritten", "text": part} for part in parts if part]


def readme_sections(text):
    """Split Markdown at level-2/3 headings, keeping code fences whole."""
    sections, current, fence = [], [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and re.match(r"^#{1,3} ", line) and current:
            sections.append("\n".join(current))
            current = []
        current.append(line)
    if current:
        sections.append("\n".join(current))
    return sections


def usable(text):
    if not MIN_CHARS <= len(text) <= MAX_CHARS or EMAIL_LIKE.search(text):
        return False
    # Badge walls and HTML-only blocks are not answers.
    letters = sum(ch.isalpha() for ch in text)
    return letters > len(text) * 0.35 and text.count("<img") + text.count("[![") < 3


def npm(rng):
    records = []
    for readme in sorted((ROOT / "node_modules").glob("**/README.md")):
        rel = readme.relative_to(ROOT / "node_modules")
        if len(rel.parts) > 3 or "node_modules" in rel.parts[:-1]:
            continue
        package = "/".join(rel.parts[:-1])
        try:
            text = readme.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        picked = []
        for section in readme_sections(text):
            heading = (section.splitlines() or [""])[0]
            if heading.startswith("#") and SKIP_HEADINGS.search(heading):
                continue
            section = clean(section)
            if usable(section):
                picked.append(section)
        rng.shuffle(picked)
        for section in picked[:NPM_PER_PACKAGE]:
            records.append({"source": f"npm:{package}/README.md", "text": section})
    rng.shuffle(records)
    return sorted(records[:NPM_TOTAL], key=lambda r: r["source"])


def python(rng):
    site = sorted((ROOT / "ner" / ".venv" / "lib").glob("python3*/site-packages"))
    records = []
    if not site:
        return records
    for path in sorted(site[0].glob("*/**/*.py")):
        rel = path.relative_to(site[0])
        if rel.parts[0].endswith(".dist-info") or "tests" in rel.parts or rel.parts[0].startswith("_"):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            doc = ast.get_docstring(node)
            if doc is not None and usable(clean(doc)):
                records.append({"source": f"python:{rel.as_posix()}", "text": clean(doc)})
    rng.shuffle(records)
    # At most three docstrings per file, so one large module does not dominate.
    per_file, out = {}, []
    for record in records:
        if per_file.get(record["source"], 0) < 3:
            per_file[record["source"]] = per_file.get(record["source"], 0) + 1
            out.append(record)
        if len(out) == PYTHON_TOTAL:
            break
    return sorted(out, key=lambda r: r["source"])


# Public release facts: (product, version, release date ISO, documentation or release URL).
FACTS = [
    ("Python", "3.13.0", "2024-10-07", "https://docs.python.org/3.13/whatsnew/3.13.html"),
    ("Python", "3.11.0", "2022-10-24", "https://docs.python.org/3/whatsnew/3.11.html"),
    ("Node.js", "20.0.0", "2023-04-18", "https://nodejs.org/en/blog/release/v20.0.0"),
    ("Node.js", "23.0.0", "2024-10-16", "https://nodejs.org/en/blog/release/v23.0.0"),
    ("Django", "5.1", "2024-08-07", "https://docs.djangoproject.com/en/5.1/releases/5.1/"),
    ("Django", "4.2", "2023-04-03", "https://docs.djangoproject.com/en/4.2/releases/4.2/"),
    ("React", "19.0.0", "2024-12-05", "https://react.dev/blog/2024/12/05/react-19"),
    ("React", "18.0.0", "2022-03-29", "https://react.dev/blog/2022/03/29/react-v18"),
    ("TypeScript", "5.6", "2024-09-09", "https://devblogs.microsoft.com/typescript/announcing-typescript-5-6/"),
    ("TypeScript", "5.0", "2023-03-16", "https://devblogs.microsoft.com/typescript/announcing-typescript-5-0/"),
    ("PostgreSQL", "17.0", "2024-09-26", "https://www.postgresql.org/docs/17/release-17.html"),
    ("PostgreSQL", "16.0", "2023-09-14", "https://www.postgresql.org/docs/16/release-16.html"),
    ("Go", "1.22.0", "2024-02-06", "https://go.dev/doc/go1.22"),
    ("Go", "1.21.0", "2023-08-08", "https://go.dev/doc/go1.21"),
    ("Rust", "1.80.0", "2024-07-25", "https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html"),
    ("Kubernetes", "1.30.0", "2024-04-17", "https://kubernetes.io/blog/2024/04/17/kubernetes-v1-30-release/"),
    ("Docker Engine", "27.0.1", "2024-06-24", "https://docs.docker.com/engine/release-notes/27/"),
    ("Spring Boot", "3.3.0", "2024-05-23", "https://spring.io/blog/2024/05/23/spring-boot-3-3-0-available-now"),
    ("Ruby", "3.3.0", "2023-12-25", "https://www.ruby-lang.org/en/news/2023/12/25/ruby-3-3-0-released/"),
    ("Rails", "7.2.0", "2024-08-09", "https://rubyonrails.org/2024/8/10/Rails-7-2-0-has-been-released"),
    ("NumPy", "2.0.0", "2024-06-16", "https://numpy.org/doc/stable/release/2.0.0-notes.html"),
    ("pandas", "2.2.0", "2024-01-19", "https://pandas.pydata.org/docs/whatsnew/v2.2.0.html"),
    ("Vue", "3.5.0", "2024-09-03", "https://blog.vuejs.org/posts/vue-3-5"),
    ("Svelte", "5.0.0", "2024-10-19", "https://svelte.dev/blog/svelte-5-is-alive"),
    ("Deno", "2.0.0", "2024-10-09", "https://deno.com/blog/v2.0"),
    ("Bun", "1.1.0", "2024-04-01", "https://bun.sh/blog/bun-v1.1"),
    ("Terraform", "1.9.0", "2024-06-26", "https://github.com/hashicorp/terraform/releases/tag/v1.9.0"),
    (
        "Elasticsearch",
        "8.15.0",
        "2024-08-08",
        "https://www.elastic.co/guide/en/elasticsearch/reference/8.15/release-notes-8.15.0.html",
    ),
    ("MySQL", "8.4.0", "2024-04-30", "https://dev.mysql.com/doc/relnotes/mysql/8.4/en/news-8-4-0.html"),
    ("Redis", "7.4.0", "2024-07-29", "https://redis.io/blog/announcing-redis-community-edition-and-redis-stack-74/"),
    ("Android", "15", "2024-10-15", "https://developer.android.com/about/versions/15"),
    ("iOS", "18.0", "2024-09-16", "https://support.apple.com/en-us/HT201222"),
    ("Fedora Linux", "41", "2024-10-29", "https://fedoramagazine.org/announcing-fedora-linux-41/"),
    ("Grafana", "11.0.0", "2024-05-14", "https://grafana.com/docs/grafana/latest/whatsnew/whats-new-in-v11-0/"),
    ("Prometheus", "3.0.0", "2024-11-14", "https://prometheus.io/blog/2024/11/14/prometheus-3-0/"),
    ("Tailwind CSS", "4.0.0", "2025-01-22", "https://tailwindcss.com/blog/tailwindcss-v4"),
    ("Electron", "33.0.0", "2024-10-15", "https://www.electronjs.org/blog/electron-33-0"),
    ("FastAPI", "0.115.0", "2024-09-17", "https://fastapi.tiangolo.com/release-notes/"),
    ("PyTorch", "2.5.0", "2024-10-17", "https://pytorch.org/blog/pytorch2-5/"),
    ("OpenSSL", "3.4.0", "2024-10-22", "https://openssl-library.org/news/openssl-3.4-notes/"),
]

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def long_date(iso, style):
    year, month, day = (int(part) for part in iso.split("-"))
    if style == 0:
        return f"{MONTHS[month - 1]} {day}, {year}"
    if style == 1:
        return f"{day} {MONTHS[month - 1]} {year}"
    if style == 2:
        return iso
    return f"{MONTHS[month - 1][:3]} {day} {year}"


def templated(rng):
    templates = [
        lambda p, v, d, u, s: (
            f"{p} {v} was released on {long_date(d, s)}. The release notes are at {u} and list "
            "the new features, deprecations and upgrade steps."
        ),
        lambda p, v, d, u, s: (
            f"Yes, {p} {v} is out: it shipped on {long_date(d, s)}.\n\n- Release notes: {u}\n- "
            "Upgrade: read the breaking changes first, then bump the version in your lock file."
        ),
        lambda p, v, d, u, s: (
            f"| Product | Version | Release date |\n|---|---|---|\n| {p} | {v} | {d} |\n\nSource: {u}"
        ),
        lambda p, v, d, u, s: (
            f"According to the official announcement ({u}), {p} {v} became generally available "
            f"on {long_date(d, s)}. If you are on an older release, plan the upgrade within the "
            "support window."
        ),
        lambda p, v, d, u, s: (
            f"```text\n$ {p.lower().split()[0]} --version\n{v}\n```\n\nThat is the {long_date(d, s)} "
            f"release; see {u} for what changed."
        ),
        lambda p, v, d, u, s: (
            f"**{p} {v}** ({long_date(d, s)})\n\nWhat's new: {u}\n\nTip: pin the exact version "
            f"({v}) in CI so builds stay reproducible."
        ),
        lambda p, v, d, u, s: (
            f"The first release of the {p} {v.split('.')[0]} line, {v}, dates from {long_date(d, s)}. "
            f"Minor releases since then fixed bugs and security issues; check {u} and the project's "
            "changelog before upgrading production systems."
        ),
        lambda p, v, d, u, s: (
            f'Pin it in your manifest:\n\n```json\n{{ "{p.lower().replace(" ", "-")}": "{v}" }}\n```\n\n{p} '
            f"{v} was published on {d} ({u})."
        ),
    ]
    records = []
    for index, (product, version, date, url) in enumerate(FACTS):
        for pick in rng.sample(range(len(templates)), 3):
            text = templates[pick](product, version, date, url, (index + pick) % 4)
            records.append({"source": f"templated:t{pick}", "text": text})
    return records


def main():
    rng = random.Random(20261126)
    records = handwritten() + templated(rng) + npm(rng) + python(rng)
    with OUT.open("w", encoding="utf-8") as handle:
        for index, record in enumerate(records):
            handle.write(json.dumps({"id": f"ord-{index:04d}", **record}, ensure_ascii=False) + "\n")
    counts = {}
    for record in records:
        key = record["source"].split(":")[0]
        counts[key] = counts.get(key, 0) + 1
    print(f"{OUT.relative_to(ROOT)}: {len(records)} answers {counts}")


if __name__ == "__main__":
    main()
