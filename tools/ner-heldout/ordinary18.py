#!/usr/bin/env python3
"""Write data/ordinary-session18.jsonl: ordinary prompts written by hand for session 18
(wave17/ner), stdlib only. No personal data: a name detection on any of them alters an ordinary
prompt (`ner/tools/corpus_preds.py` counts them with every other corpus in data/).

Class: a country written as dotted initials ("U.S.", "U.K.", "E.U.", "U.A.E.") in the topic of
an instruction or a question ("Explain U.S. tax brackets"), the form session 17's dotted-country
rule turned into a place; and the same prompts' neighbours (the topic after a question word, in a
second sentence, before a capitalized noun). Written right after the session-18 rule that keeps
them (not before it): main alters 20 of the 30, the rule's first version 2 (one "Now explain ..."
prompt led to the leading-adverb step; "the U.S. Senate" stays an organization).

Usage: python3 tools/ner-heldout/ordinary18.py > data/ordinary-session18.jsonl
"""

from __future__ import annotations

import json
import sys

PROMPTS = [
    "Explain U.S. tax brackets",
    "Explain U.S. tax brackets for a single filer in plain words.",
    "Summarize U.K. employment law on notice periods.",
    "Compare U.S. and E.U. rules on data breach notification.",
    "What are the U.S. federal holidays this year?",
    "How do U.K. VAT rules apply to digital services sold online?",
    "Is the U.S. dollar still the main reserve currency?",
    "Why did U.K. inflation rise so quickly in 2022?",
    "List the U.S. states that have no income tax.",
    "Describe how E.U. regulations differ from directives.",
    "Write a short quiz about U.S. history for high school students.",
    "Translate this paragraph about E.U. fishing quotas into French.",
    "Give me three facts about U.A.E. labour law.",
    "Can you explain how the U.S. Senate confirms judges?",
    "Which U.K. universities offer part-time law degrees?",
    "Draft an email asking whether U.S. shipping rates include customs duties.",
    "What does the U.S. Constitution say about presidential term limits?",
    "How long does a U.K. passport renewal usually take?",
    "Outline the main E.U. requirements for cookie banners.",
    "Create a table comparing U.S. and U.K. spelling differences.",
    "Thanks for the summary. Now explain U.S. capital gains tax.",
    "I read the article twice.\nWhat is the U.S. poverty line for a family of four?",
    "Please explain U.S. Social Security benefits for early retirees.",
    "Should I use U.S. or U.K. date formats in an international report?",
    "Rewrite this sentence in U.S. English: The colour of the organisation's logo is grey.",
    "Does E.U. law require a data protection officer for small firms?",
    "Define U.S. GAAP in two sentences.",
    "Check this code that converts U.S. dollars to euros.",
    "How are U.K. council tax bands calculated?",
    "Recommend books about U.S. economic history.",
]


def main() -> int:
    for index, text in enumerate(PROMPTS):
        record = {
            "id": f"o18-{index:02d}",
            "lang": "en",
            "domain": "dotted-country",
            "negative": True,
            "text": text,
            "entities": [],
        }
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
