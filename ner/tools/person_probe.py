#!/usr/bin/env python3
"""Person-mention probe (session 13): how people are named in chat, e-mails, tickets, forms, logs
and letters, in wordings written for this file only (not the held-out corpora's, not the dev
templates', not own_text.py's or class_text.py's), to find the forms the sidecar misses or cuts
short as classes.

Names: Faker person providers of 17 locales (English ones included: the gazetteers leave
Faker's English lists out, so these names test the model and the shape rules, not a list
lookup), plus short romanized Chinese, Arabic and Korean lists written here (Faker's locales for
them are in their own scripts). Forms: full name, first name alone after a cue, surname after a
title, "Lastname, Firstname", initials ("J. Smith", "J.R. Smith"), particle and Mc/O' surnames,
hyphenated surnames, lower-case and capitals, possessives, names at line starts and in lists.

Each record carries `frame` (the frame's index) and `form`, so errors can be grouped by class.
Negatives (frames with no person: products, roles, places) are mixed in as records with no
entities, so a rule that fires on the frame rather than on the name shows up as a false positive.

Runs in a venv with Faker:
  .venv-presidio/bin/python ner/tools/person_probe.py --count 1500 --seed 13 > /tmp/probe13.jsonl
  PYTHONPATH=<worktree>/ner/src ner/.venv/bin/python ner/tools/dev_eval.py --only extra \\
      --extra /tmp/probe13.jsonl [--errors person]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys

from faker import Faker

LOCALES = [
    "en_US", "en_GB", "en_IN", "en_NG", "en_KE", "en_PK", "en_AU", "es_MX", "pt_BR", "pl_PL",
    "cs_CZ", "tr_TR", "vi_VN", "fr_FR", "de_DE", "nl_NL", "it_IT",
]  # fmt: skip
CHINESE_GIVEN = [
    "Wei",
    "Xiaoming",
    "Jing",
    "Hui",
    "Yan",
    "Min",
    "Lei",
    "Tao",
    "Fang",
    "Jun",
    "Ying",
    "Hao",
    "Qiang",
    "Xiu",
    "Ling",
    "Zhen",
    "Yun",
    "Bo",
    "Chen",
]
CHINESE_FAMILY = [
    "Wang",
    "Li",
    "Zhang",
    "Liu",
    "Chen",
    "Yang",
    "Huang",
    "Zhao",
    "Wu",
    "Zhou",
    "Xu",
    "Sun",
    "Ma",
    "Zhu",
    "Hu",
    "Guo",
    "He",
    "Lin",
    "Luo",
    "Gao",
]
ARABIC_GIVEN = [
    "Omar",
    "Youssef",
    "Khalid",
    "Layla",
    "Fatima",
    "Hamza",
    "Karim",
    "Rania",
    "Tariq",
    "Nour",
    "Samir",
    "Aisha",
    "Bilal",
    "Salma",
]
ARABIC_FAMILY = [
    "Haddad",
    "Nasser",
    "Al-Masri",
    "Khoury",
    "Mansour",
    "Saleh",
    "El-Amin",
    "Farouk",
    "Aziz",
    "Hamdan",
    "Qasim",
    "Bakr",
]
KOREAN_GIVEN = ["Minjun", "Seoyeon", "Jiho", "Haeun", "Dohyun", "Jiwoo", "Yerin", "Sungmin", "Hyejin"]
KOREAN_FAMILY = ["Kim", "Park", "Choi", "Jung", "Kang", "Cho", "Yoon", "Jang", "Lim", "Han"]
PARTICLES = ["van der", "van", "de la", "de", "da", "dos", "von", "di", "del", "ter", "le", "al"]
PREFIXED = ["O'", "Mc", "Mac", "D'", "Fitz"]

# {P} full name, {F} first name, {L} surname, {T} title, {R} "Last, First", {I} "F. Last".
FRAMES = [
    "{P} will cover the on-call shift this weekend.",
    "Can you loop in {P} before the release?",
    "pinging {F} about the broken build",
    "ask {F} if the invoice went out",
    "Hi {F}, quick question about the staging database.",
    "hey {F} - do you have a minute?",
    "Thanks again {F}!",
    "I spoke with {P} yesterday and she agreed to the new terms.",
    "Per {P}'s email, the deadline moved to Friday.",
    "{F}'s laptop is still at the repair shop.",
    "The ticket was assigned to {P} on Monday.",
    "Reporter: {P}\nSeverity: high\nComponent: billing",
    "Name: {P}\nDate of birth: 12/03/1988",
    "Patient name: {R}",
    "Customer: {R} (account 4471)",
    "From: {P}\nSubject: reimbursement",
    "cc: {P}, {P2}",
    "Attendees: {P}, {P2} and {F3}",
    "Best regards,\n{P}",
    "Kind regards,\n{F}",
    "Cheers,\n{F}",
    "Dear {T} {L},\nThank you for your letter.",
    "Dear {F},\nYour order has shipped.",
    "{T} {L} will see you at 3 pm.",
    "Please forward the contract to {T} {L}.",
    "Our new hire, {P}, starts on the 4th.",
    "The report was written by {P} and reviewed by {P2}.",
    "My manager {P} approved the budget.",
    "my sister {F} lives nearby",
    "I'm meeting {F} and {F2} for lunch.",
    "{I} signed the purchase order.",
    "Approved by: {I}",
    "Contact person - {P}, phone ext. 221",
    "1. {P}\n2. {P2}\n3. {P3}",
    "- {P} (lead)\n- {P2} (backend)",
    "{P} and {P2} co-authored the paper.",
    "According to {P}, the server was rebooted twice.",
    "The scholarship was awarded to {P}.",
    "We interviewed {P}, a nurse from the night shift.",
    "{P}, the project lead, signed off on the design.",
    "I need a reference letter for {P}.",
    "Send the slides to {F} by noon.",
    "[09:14] {F}: deploy is done",
    "2026-03-04 12:01:55 INFO user {P} logged in",
    "user={F} action=login status=ok",
    "Please update the address for {P} in the CRM.",
    "The landlord, {P}, refused to return the deposit.",
    "Is {P} still the contact for this account?",
    "Who is {P}?",
    "What did {F} say about the merge?",
    "Write a birthday message for my friend {F}.",
    "Draft an email to {P} declining the offer.",
    "Translate this note from {P} into Spanish.",
    "Summarize the complaint filed by {P}.",
    "{F} mentioned that the printer is jammed again.",
    "tell {F} i said thanks",
    "{pl} called about the refund",
    "Meeting notes ({P}, {P2})",
    "Witness: {P}, age 42",
    "Guardian: {R}",
    "Emergency contact: {P} (mother)",
    "The case {P} v. {P2} was settled out of court.",
    "Shout-out to {P} for fixing the flaky tests!",
    "Can {F} and I swap shifts on Tuesday?",
    "{P} and {F2} are on the hiring panel.",
    "Invite {P} to the kickoff call.",
    "Thank you, {T} {L}, for your patience.",
    "I was treated by {T} {L} at the clinic.",
    "This is {P} from the accounts team.",
    "It's {F} here, calling about my appointment.",
    "Hello, my son {F} is sick today.",
    "Photos from the {L} family reunion",
    "Congratulations {F} on your promotion!",
    "Signed, {P}",
    "Owner: {P} | Due: Friday",
    "@{F} can you review?",
]
NEGATIVES = [
    "Can you loop in the security team before the release?",
    "ask the vendor if the invoice went out",
    "Hi team, quick question about the staging database.",
    "Per the contract, the deadline moved to Friday.",
    "The ticket was assigned to the backlog on Monday.",
    "Reporter: anonymous\nSeverity: high\nComponent: billing",
    "Best regards,\nThe Support Team",
    "My manager approved the budget.",
    "Approved by: finance",
    "According to the logs, the server was rebooted twice.",
    "Send the slides to the client by noon.",
    "2026-03-04 12:01:55 INFO user admin logged in",
    "Please update the address for this customer in the CRM.",
    "What did the linter say about the merge?",
    "Write a birthday message for my friend.",
    "Draft an email to Human Resources declining the offer.",
    "Summarize the complaint filed by the tenant.",
    "Shout-out to Quality Assurance for fixing the flaky tests!",
    "Owner: Platform | Due: Friday",
    "Invite Engineering to the kickoff call.",
    "Congratulations on your promotion!",
    "Thank you, Support, for your patience.",
    "The Jupyter notebook and the Docker image are ready.",
    "Merge Request Review Checklist",
    "Grant Access to the shared drive",
]


class Names:
    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.fakers = []
        for index, locale in enumerate(LOCALES):
            fake = Faker(locale)
            fake.seed_instance(seed + index)
            self.fakers.append((locale, fake))

    def pair(self) -> tuple[str, str, str]:  # noqa: PLR0911 - one return per name origin
        roll = self.rng.random()
        if roll < 0.06:
            return self.rng.choice(CHINESE_GIVEN), self.rng.choice(CHINESE_FAMILY), "chinese"
        if roll < 0.12:
            return self.rng.choice(ARABIC_GIVEN), self.rng.choice(ARABIC_FAMILY), "arabic"
        if roll < 0.15:
            return self.rng.choice(KOREAN_GIVEN), self.rng.choice(KOREAN_FAMILY), "korean"
        locale, fake = self.rng.choice(self.fakers)
        first = fake.first_name()
        last = fake.last_name()
        roll = self.rng.random()
        if roll < 0.06:
            last = f"{self.rng.choice(PARTICLES)} {last}"
            return first, last, "particle"
        if roll < 0.10:
            prefix = self.rng.choice(PREFIXED)
            return first, prefix + last[:1].upper() + last[1:].lower(), "prefixed"
        if roll < 0.14:
            return first, f"{last}-{fake.last_name()}", "hyphenated"
        return first, last, locale


def record(rng: random.Random, names: Names, index: int) -> dict:
    if rng.random() < 0.15:
        return {"text": rng.choice(NEGATIVES), "entities": [], "frame": -1, "form": "negative"}
    frame_index = rng.randrange(len(FRAMES))
    frame = FRAMES[frame_index]
    people = [names.pair() for _ in range(3)]
    text = ""
    entities = []
    pos = 0
    forms = []
    for match in re.finditer(r"\{(\w+)\}", frame):
        text += frame[pos : match.start()]
        pos = match.end()
        key = match.group(1)
        slot = {"2": 1, "3": 2}.get(key[-1], 0)
        first, last, origin = people[slot]
        forms.append(origin)
        kind = key.rstrip("23")
        value: str
        if kind == "P":
            value = f"{first} {last}"
        elif kind == "pl":
            value = f"{first} {last}".lower()
        elif kind == "F":
            value = first
        elif kind == "L":
            value = last
        elif kind == "R":
            value = f"{last}, {first}"
        elif kind == "I":
            value = (
                f"{first[0]}. {last}"
                if rng.random() < 0.7
                else f"{first[0]}.{rng.choice('ABDJKMRS')}. {last}"
            )
        elif kind == "T":
            text += rng.choice(["Dr.", "Mr.", "Ms.", "Mrs.", "Prof."])
            continue
        else:
            raise ValueError(key)
        entities.append({"type": "person", "start": len(text), "end": len(text) + len(value)})
        text += value
    text += frame[pos:]
    return {"text": text, "entities": entities, "frame": frame_index, "form": ",".join(sorted(set(forms)))}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rng = random.Random(args.seed)  # noqa: S311 - test text, not secrets
    names = Names(rng, args.seed)
    for index in range(args.count):
        sys.stdout.write(json.dumps(record(rng, names, index), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
