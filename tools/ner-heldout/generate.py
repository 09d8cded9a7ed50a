#!/usr/bin/env python3
"""Generate data/ner-heldout.jsonl: a held-out slice labeled with person, organization, location.

Written for issue 4's "Measured" section, independently of the dev corpus and of veil-ner's code:
hand-written name lists and sentence templates (e-mails, chat, support tickets, news-like prose,
form-like signatures), filled with a fixed seed, gold spans computed while the text is assembled
(so labels never come from a model). Standard library only; deterministic.

Labeling conventions (decided before any system was run on the slice; nothing is tuned on it):
- person: the name as written, first name alone in chat included (`Priya`), full names with
  particles (`Anne-Marie van der Berg`); titles (`Dr.`, `Ms.`) are outside the span.
- organization: the company name with its legal suffix (`Halvorsen Logistics GmbH`,
  `Brightwater Analytics Inc.`), or a well-known institution name (`the University of Leeds`
  -> `University of Leeds`).
- location: cities, countries, regions, each its own span (`Lyon, France` = two spans);
  street addresses are not used here (the dev corpus already covers them).
- negatives (`negative: true`, no entities): sentences full of capitalized non-entities
  (weekdays, months, product and feature names, headings in Title Case, acronyms).

Usage: python3 tools/ner-heldout/generate.py [--out data/ner-heldout.jsonl] [--count 200] [--seed 4]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

FIRST = [
    "Priya",
    "Marcus",
    "Elena",
    "Tomasz",
    "Aisha",
    "Hiroshi",
    "Camille",
    "Oluwaseun",
    "Greta",
    "Diego",
    "Fatima",
    "Liam",
    "Ingrid",
    "Rafael",
    "Mei",
    "Nikolai",
    "Chiara",
    "Samuel",
    "Yasmin",
    "Bjorn",
    "Grace",
    "Mateo",
    "Siobhan",
    "Arjun",
    "Lucia",
    "Kwame",
    "Hannah",
    "Dmitri",
    "Sofia",
    "Owen",
    "Anne-Marie",
    "Jean-Luc",
    "Zofia",
    "Emeka",
    "Harriet",
    "Tariq",
    "Beatriz",
    "Callum",
    "Noura",
    "Felix",
]
LAST = [
    "Raman",
    "Whitfield",
    "Kowalczyk",
    "Okafor",
    "Tanaka",
    "Delacroix",
    "Lindqvist",
    "Alvarez",
    "Haddad",
    "O'Brien",
    "Novak",
    "Rossi",
    "Mensah",
    "Fischer",
    "Castillo",
    "Petrov",
    "Nakamura",
    "Gallagher",
    "Chowdhury",
    "Moreau",
    "Adeyemi",
    "Bergstrom",
    "Ferreira",
    "MacLeod",
    "Sato",
    "Kaplan",
    "Duarte",
    "van der Berg",
    "de la Cruz",
    "Abernathy",
    "Brennan",
    "Szabo",
    "Iyer",
    "Holloway",
    "Esposito",
]
COMPANY_STEM = [
    "Halvorsen Logistics",
    "Brightwater Analytics",
    "Northwind Traders",
    "Cobalt Ridge Capital",
    "Meridian Health Partners",
    "Bluefin Software",
    "Stonebridge Insurance",
    "Ashford & Pike",
    "Kestrel Dynamics",
    "Orchard Lane Foods",
    "Vantage Point Media",
    "Silverline Telecom",
    "Redwood Biotech",
    "Harbor & Finch",
    "Quayside Energy",
    "Lumen Optics",
    "Greystone Properties",
    "Falcon Freight",
    "Tidewater Pharmaceuticals",
    "Copperfield Engineering",
    "Nordlicht Systeme",
    "Atlas Maritime",
    "Pinecrest Financial",
    "Summit Peak Outdoor",
]
SUFFIX = ["Inc.", "Ltd", "LLC", "GmbH", "plc", "Corp.", "S.A.", "AG", "B.V.", "Pty Ltd", "Group", "Holdings"]
INSTITUTION = [
    "University of Leeds",
    "European Central Bank",
    "World Health Organization",
    "Bank of Canada",
    "Red Cross",
    "Deutsche Bahn",
    "Toyota",
    "Siemens",
    "Unilever",
    "Goldman Sachs",
]
CITY = [
    "Lyon",
    "Rotterdam",
    "Osaka",
    "Nairobi",
    "Toronto",
    "Melbourne",
    "Krakow",
    "Porto",
    "Austin",
    "Edinburgh",
    "Munich",
    "Seville",
    "Bangalore",
    "Cape Town",
    "Buenos Aires",
    "San Francisco",
    "Hamburg",
    "Dublin",
    "Singapore",
    "Lagos",
    "Vancouver",
    "Gothenburg",
    "Milan",
    "Boston",
    "New York",
    "Los Angeles",
    "Rio de Janeiro",
    "Kuala Lumpur",
]
COUNTRY = [
    "France",
    "the Netherlands",
    "Japan",
    "Kenya",
    "Canada",
    "Australia",
    "Poland",
    "Portugal",
    "Germany",
    "Spain",
    "India",
    "South Africa",
    "Argentina",
    "Ireland",
    "Nigeria",
    "Sweden",
    "Italy",
    "Brazil",
    "Malaysia",
    "Mexico",
    "New Zealand",
    "Switzerland",
]
REGION = ["Bavaria", "Catalonia", "Ontario", "Queensland", "Scotland", "Texas", "California", "Tuscany"]
TITLE = ["Dr. ", "Ms. ", "Mr. ", "Prof. ", ""]

# Templates: {P} person (full name), {F} person (first name only), {O} organization, {C} city,
# {K} country, {R} region. {T} is a title (not an entity). Everything else is literal text.
TEMPLATES = {
    "email": [
        "Hi {F},\n\nThanks for the call yesterday. As discussed, {O} will send the revised contract to "
        "our office in {C} by Friday.\n\nBest regards,\n{P}\n{O}",
        "Dear {T}{P},\n\nI am writing on behalf of {O} regarding the shipment that left {C} on Monday. "
        "Customs in {K} are holding it pending a signed invoice.\n\nKind regards,\n{P}",
        "Hello team,\n\n{P} from {O} will join the kickoff. She is flying in from {C}, {K} and lands "
        "Tuesday morning.\n\nCheers,\n{F}",
        "Subject: Introduction\n\n{F}, meet {P}. {P} leads procurement at {O} and is based in {C}. "
        "I think you two should talk about the {K} rollout.",
        "Dear {T}{P},\n\nYour application to {O} has been received. Interviews take place at our "
        "{C} office.\n\nSincerely,\nHuman Resources\n{O}",
    ],
    "chat": [
        "@{F} can you ping {P} about the invoice from {O}? they said it was sent from {C}",
        "{F}: just landed in {C}, heading to the {O} office now",
        "hey {F}, {P} says the {O} demo moved to Thursday. are you still in {K}?",
        "ok so {F} and {F} are covering on-call this week, {P} is out in {C}",
        "lol {F} the {O} folks in {C} loved it",
    ],
    "ticket": [
        "Ticket #{N}: Customer {P} ({O}) reports that invoices sent to the {C} branch are missing "
        "the VAT line. Escalated by {P}.",
        "Priority: High\nReporter: {P}\nCompany: {O}\nLocation: {C}, {K}\nDescription: SSO login "
        "fails for all users since the last update.",
        "Case {N} - {O} cannot export reports. Contact: {T}{P}. Site: {C}. Assigned to {F}.",
        "Follow-up from {P}: the {C} warehouse of {O} still receives duplicate orders.",
    ],
    "news": [
        "{O} said on Wednesday it would open a new plant near {C}, creating 400 jobs in {R}.",
        "{C} ({K}) - {P}, chief executive of {O}, resigned after the board rejected the merger with {O}.",
        "Shares of {O} rose 4% after {P} told analysts that demand in {K} had recovered.",
        "{I} appointed {P} to lead its new office in {C}, the organization announced.",
        "{P}, a spokesperson for {I}, said talks with officials in {K} would resume in {C} next month.",
        "Flooding in {R} forced {O} to close its depot outside {C}, according to {P}.",
    ],
    "signature": [
        "--\n{P}\nSenior Account Manager | {O}\n{C}, {K}",
        "Regards,\n{T}{P}\nHead of Research, {I}\n{C}",
    ],
}
NEGATIVES = [
    "Quarterly Business Review is on Monday; please bring the Release Notes and the Q3 Roadmap.",
    "Reminder: Daylight Saving Time starts on Sunday. Update the On-Call Rotation in PagerDuty.",
    "The Export To CSV button in Settings > Billing is greyed out since Version 4.2.",
    "Please Review The Attached Draft Before Friday And Add Comments In Track Changes.",
    "Kubernetes Ingress returns 502 after the Helm upgrade; Grafana dashboards show no Pod restarts.",
    "Action Items: Update Terms Of Service, Rotate API Keys, Archive Old Tickets.",
    "The Annual Report, Executive Summary and Appendix B are in the Shared Drive.",
    "Welcome To The New Onboarding Portal! Click Start Here To Begin Your Journey.",
    "Thanks for reaching out to Customer Support. Your Case Status is now Pending Review.",
    "Black Friday Sale: Up To 40% Off On All Premium Plans Until November 30.",
    "Dark Mode, Smart Filters and Bulk Edit ship in the Spring Release.",
    "Error: Invalid Token. Please Sign In Again Or Contact Your Administrator.",
    "Agenda: Opening Remarks, Budget Update, Hiring Plan, Any Other Business.",
    "The Status Page reports Degraded Performance for the Search API in the EU Region.",
    "Happy New Year from all of us! The Help Desk reopens on Tuesday, January 3.",
    "Terms And Conditions apply. See Privacy Policy and Cookie Settings for details.",
    "Merge Request Approved: Fix Null Pointer In Payment Service (Sprint 14).",
    "Weekly Digest: Top Stories, Product Updates, Community Highlights.",
    "The Team Lead asked for a Root Cause Analysis before the Change Advisory Board meets Thursday.",
    "Out Of Office until Wednesday. For Urgent Matters contact the Service Desk.",
]


def render(template: str, rng: random.Random) -> tuple[str, list[dict]]:
    text, entities = "", []
    memo: dict[str, list[str]] = {}
    i = 0
    while i < len(template):
        if template[i] == "{":
            j = template.index("}", i)
            key = template[i + 1 : j]
            i = j + 1
            kind, value = fill(key, rng, memo)
            start = len(text)
            text += value
            if kind:
                entities.append({"type": kind, "start": start, "end": len(text)})
        else:
            text += template[i]
            i += 1
    return text, entities


def fill(key: str, rng: random.Random, memo: dict[str, list[str]]) -> tuple[str | None, str]:
    if key == "T":
        return None, rng.choice(TITLE)
    if key == "N":
        return None, str(rng.randint(10000, 99999))
    if key == "P":
        # A full name reused within one record (sign-off repeating the writer) half of the time.
        seen = memo.setdefault("P", [])
        if seen and rng.random() < 0.5:
            return "person", rng.choice(seen)
        first = rng.choice(FIRST)
        name = f"{first} {rng.choice(LAST)}"
        if rng.random() < 0.1:
            name = f"{first} {rng.choice(LAST)}-{rng.choice(LAST)}"
        seen.append(name)
        return "person", name
    if key == "F":
        return "person", rng.choice(FIRST)
    if key == "O":
        seen = memo.setdefault("O", [])
        if seen and rng.random() < 0.5:
            return "organization", rng.choice(seen)
        name = f"{rng.choice(COMPANY_STEM)} {rng.choice(SUFFIX)}"
        seen.append(name)
        return "organization", name
    if key == "I":
        return "organization", rng.choice(INSTITUTION)
    if key == "C":
        return "location", rng.choice(CITY)
    if key == "K":
        return "location", rng.choice(COUNTRY)
    if key == "R":
        return "location", rng.choice(REGION)
    raise ValueError(key)


def fix_country_article(text: str, entities: list[dict]) -> tuple[str, list[dict]]:
    """`the Netherlands` keeps `the` outside the span (as for `the University of Leeds`)."""
    out = []
    for e in entities:
        if text[e["start"] : e["end"]].startswith("the "):
            e = {**e, "start": e["start"] + 4}
        out.append(e)
    return text, out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data/ner-heldout.jsonl")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    domains = sorted(TEMPLATES)
    n_neg = args.count // 8
    records = []
    for k in range(args.count - n_neg):
        domain = domains[k % len(domains)]
        text, entities = fix_country_article(*render(rng.choice(TEMPLATES[domain]), rng))
        for e in entities:
            assert text[e["start"] : e["end"]].strip() == text[e["start"] : e["end"]], (text, e)
        records.append({"domain": domain, "negative": False, "text": text, "entities": entities})
    negatives = NEGATIVES * (n_neg // len(NEGATIVES) + 1)
    for k in range(n_neg):
        records.append({"domain": "negative", "negative": True, "text": negatives[k], "entities": []})
    rng.shuffle(records)
    with Path(args.out).open("w", encoding="utf-8") as out:
        for k, rec in enumerate(records):
            row = {"id": f"nh-{k}", "lang": "en", **rec}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records ({n_neg} negative) to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
