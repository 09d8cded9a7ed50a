#!/usr/bin/env python3
"""Veil vs Microsoft Presidio on the same labeled corpora: per-type F1 side by side, time per record.

Presidio runs every predefined pattern recognizer of presidio-analyzer (each instantiated for
English so national-id recognizers of other countries take part too) with a blank spaCy English
tokenizer whose lemmas are the lowercased tokens, so Presidio's context words still work. No
trained spaCy model is loaded: the official en_core_web_sm is not published on PyPI (only
third-party re-uploads are), and model hubs are out of reach here. Without NER, Presidio's
PERSON / LOCATION / NRP detection is off, as Veil's (its NER is a separate sidecar).
Veil runs offline through server/src/bench/eval-corpus.ts (--json), scored identically.

Scoring (same as eval_detect.py): code-point spans, one-to-one greedy match by type with
IoU >= 0.5, threshold 0.5 for both; predictions of Presidio types with no Veil counterpart are
dropped (they name things the corpora do not label). Types neither system detects are omitted.
Usage: compare.py CORPUS.jsonl [...] [--markdown]
"""

import json
import logging
import subprocess
import sys
import time

import spacy
from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
from presidio_analyzer import predefined_recognizers as predefined
from presidio_analyzer.nlp_engine import SpacyNlpEngine
from scoring import f1, score
from spacy.language import Language

PRESIDIO_TO_VEIL = {
    "EMAIL_ADDRESS": "email",
    "PHONE_NUMBER": "phone",
    "CREDIT_CARD": "credit_card",
    "IBAN_CODE": "iban",
    "US_SSN": "us_ssn",
    "IP_ADDRESS": "ip_address",
    "URL": "url",
    "DATE_TIME": "date",
    "CRYPTO": "crypto_wallet",
    "MAC_ADDRESS": "mac_address",
    "ABA_ROUTING_NUMBER": "aba_routing",
    "US_ITIN": "us_itin",
    "US_PASSPORT": "us_passport",
    "US_NPI": "us_npi",
    "US_MBI": "us_mbi",
    "UK_NHS": "uk_nhs",
    "UK_NINO": "uk_nino",
    "UK_PASSPORT": "uk_passport",
    "DE_TAX_ID": "de_tax_id",
    "DE_VAT_ID": "eu_vat",
    "IT_VAT_CODE": "eu_vat",
    "ES_NIF": "es_dni",
    "ES_NIE": "es_nie",
    "IT_FISCAL_CODE": "it_fiscal_code",
    "PL_PESEL": "pl_pesel",
    "SE_PERSONNUMMER": "se_personnummer",
    "FI_PERSONAL_IDENTITY_CODE": "fi_hetu",
    "IN_AADHAAR": "in_aadhaar",
    "IN_PAN": "in_pan",
    "AU_TFN": "au_tfn",
    "AU_MEDICARE": "au_medicare",
    "AU_ABN": "au_abn",
    "AU_ACN": "au_acn",
    "SG_NRIC_FIN": "sg_nric",
    "KR_RRN": "kr_rrn",
    "CA_SIN": "ca_sin",
    "PERSON": "person",
    "LOCATION": "location",
    "ORGANIZATION": "organization",
}
# Model-based recognizers (need a trained model or a cloud service): not run.
MODEL_BASED = {
    "SpacyRecognizer",
    "StanzaRecognizer",
    "TransformersRecognizer",
    "GLiNERRecognizer",
    "HuggingFaceNerRecognizer",
    "AzureAILanguageRecognizer",
    "AzureHealthDeidRecognizer",
    "AzureOpenAILangExtractRecognizer",
    "BasicLangExtractRecognizer",
    "LangExtractRecognizer",
    "MedicalNERRecognizer",
}


@Language.component("lowercase_lemmas")
def lowercase_lemmas(doc):
    for token in doc:
        token.lemma_ = token.lower_
    return doc


class BlankEnglishEngine(SpacyNlpEngine):
    """Presidio's spaCy engine over spacy.blank('en'): tokens and lemmas, no NER."""

    def __init__(self):
        super().__init__(models=[{"lang_code": "en", "model_name": "blank"}])

    def load(self):
        nlp = spacy.blank("en")
        nlp.add_pipe("lowercase_lemmas")
        self.nlp = {"en": nlp}


def build_analyzer():
    registry = RecognizerRegistry(supported_languages=["en"])
    for name in dir(predefined):
        if not name.endswith("Recognizer") or name in MODEL_BASED:
            continue
        cls = getattr(predefined, name)
        try:
            recognizer = cls(supported_language="en")
        except TypeError:
            try:
                recognizer = cls()
            except Exception:
                continue
        except Exception:
            continue
        if recognizer.supported_language == "en":
            registry.add_recognizer(recognizer)
    engine = BlankEnglishEngine()
    engine.load()
    return AnalyzerEngine(registry=registry, nlp_engine=engine, supported_languages=["en"])


def run_presidio(paths, analyzer, mapped_types):
    totals, elapsed, n, flags = {}, 0.0, 0, 0
    for path in paths:
        for line in open(path, encoding="utf-8"):
            if not line.strip():
                continue
            rec = json.loads(line)
            t0 = time.perf_counter()
            results = analyzer.analyze(text=rec["text"], language="en", score_threshold=0.5)
            elapsed += time.perf_counter() - t0
            n += 1
            pred = [
                {"type": PRESIDIO_TO_VEIL[r.entity_type], "start": r.start, "end": r.end}
                for r in results
                if r.entity_type in PRESIDIO_TO_VEIL
            ]
            if rec.get("negative"):
                flags += len(pred)
            score(rec["entities"], pred, totals)
    return totals, 1000 * elapsed / max(n, 1), n, flags


def run_veil(paths):
    out = subprocess.run(
        ["npx", "tsx", "server/src/bench/eval-corpus.ts", *paths, "--json"], capture_output=True, text=True, check=True
    ).stdout
    data = json.loads(out)
    report = data[-1] if isinstance(data, list) else data
    totals = {t: [v["tp"], v["fp"], v["fn"]] for t, v in report["types"].items()}
    return totals, report["mean_detect_ms"], report["records"], report["negative_record_flags"]


def main():
    # tldextract (Presidio's URL recognizer) tries to refresh the public-suffix list over the
    # network, logs a traceback when it cannot, and falls back to its bundled snapshot.
    logging.getLogger("tldextract").setLevel(logging.CRITICAL)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    markdown = "--markdown" in sys.argv
    if not args:
        print(__doc__)
        sys.exit(2)
    analyzer = build_analyzer()
    presidio_entities = set(analyzer.get_supported_entities(language="en"))
    mapped = {PRESIDIO_TO_VEIL[e] for e in presidio_entities if e in PRESIDIO_TO_VEIL}
    p_totals, p_ms, n, p_flags = run_presidio(args, analyzer, mapped)
    v_totals, v_ms, _, v_flags = run_veil(args)
    types = sorted(
        t
        for t in set(p_totals) | set(v_totals)
        if sum(v_totals.get(t, [0, 0, 0])[:1] + p_totals.get(t, [0, 0, 0])[:1]) > 0 or (t in mapped)
    )
    rows = []
    for t in types:
        gold = v_totals.get(t) or p_totals.get(t) or [0, 0, 0]
        support = gold[0] + gold[2]
        veil = f1(v_totals.get(t, [0, 0, support]))
        presidio = f1(p_totals.get(t, [0, 0, support])) if t in mapped else None
        rows.append(
            (
                t,
                support,
                veil,
                presidio,
                v_totals.get(t, [0, 0, 0])[1],
                p_totals.get(t, [0, 0, 0])[1] if t in mapped else None,
            )
        )
    fmt = lambda x: "n/a" if x is None else f"{x:.3f}"  # noqa: E731
    if markdown:
        print("| type | gold | Veil F1 | Presidio F1 | Veil FP | Presidio FP |\n|---|---:|---:|---:|---:|---:|")
        for t, support, veil, presidio, vfp, pfp in rows:
            print(f"| {t} | {support} | {fmt(veil)} | {fmt(presidio)} | {vfp} | {'n/a' if pfp is None else pfp} |")
    else:
        print(f"{'type':<20}{'gold':>6}{'Veil F1':>10}{'Presidio F1':>13}{'Veil FP':>9}{'Presidio FP':>13}")
        for t, support, veil, presidio, vfp, pfp in rows:
            print(f"{t:<20}{support:>6}{fmt(veil):>10}{fmt(presidio):>13}{vfp:>9}{('n/a' if pfp is None else pfp):>13}")
    print(f"\nrecords: {n}; flags on negative records: Veil {v_flags}, Presidio {p_flags}")
    print(
        f"time per record: Veil {v_ms:.3f} ms (offline detectAll), "
        f"Presidio {p_ms:.3f} ms (AnalyzerEngine.analyze, pattern recognizers)"
    )
    print(
        f"Presidio types compared: {len(mapped)}; Presidio entity types without a Veil counterpart (dropped): "
        f"{', '.join(sorted(e for e in presidio_entities if e not in PRESIDIO_TO_VEIL))}"
    )


if __name__ == "__main__":
    main()
