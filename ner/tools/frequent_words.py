#!/usr/bin/env python3
"""Writes ner/src/veil_ner/data/frequent_words.txt: the fixed list of words whose embedding rows
the sidecar computes once at load (veil_ner/backends/embed_cache.py). A fixed list, not the words
of requests, so the cache's content, and so the time a word takes, never depends on traffic.

Source: the English word list of the `wordfreq` package, 3.1.1 (pinned; its wheel is read as a
zip file, nothing of it is installed or imported): the words in order of frequency, the ones with
digits left out (wordfreq replaces digits by zeros, which no text contains). Regenerate and
commit the result; nothing is read from a package or the network at run time.

  python3 -m pip download --no-deps wordfreq==3.1.1 -d /tmp/wordfreq
  ner/.venv/bin/python ner/tools/frequent_words.py /tmp/wordfreq/wordfreq-3.1.1-py3-none-any.whl
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import sys
import zipfile
from pathlib import Path

import srsly

OUT = Path(__file__).resolve().parents[1] / "src/veil_ner/data/frequent_words.txt"
WHEEL_SHA256 = "4b1c6ecffc6198be3396d5cf871c4423ca71c907c231348d352dd54d62b97473"  # wordfreq 3.1.1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--count", type=int, default=20_000)
    args = parser.parse_args()
    raw = args.wheel.read_bytes()
    if hashlib.sha256(raw).hexdigest() != WHEEL_SHA256:
        raise SystemExit("not the pinned wordfreq 3.1.1 wheel")
    with zipfile.ZipFile(args.wheel) as wheel:
        data = srsly.msgpack_loads(gzip.decompress(wheel.read("wordfreq/data/large_en.msgpack.gz")))
    # cBpack: a header, then one list of words per frequency step, most frequent first
    words = [w for bucket in data[1:] for w in bucket if not any(c.isdigit() for c in w)]
    lines = [f"# wordfreq 3.1.1 large_en: the {args.count} most frequent words without digits"]
    OUT.write_text("\n".join([*lines, *words[: args.count]]) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
