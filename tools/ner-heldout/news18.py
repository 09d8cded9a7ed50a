#!/usr/bin/env python3
"""Write data/heldout-news18.jsonl: news and business sentences written and labelled by hand for
session 18 (wave17/ner), stdlib only.

Why: `data/heldout-voa.jsonl` has one organization in its dev half, too few to tell which filter
drops organizations in running news text. These sentences are written in the register of wire
news, company announcements and government press notes (attribution "said", "according to",
acronyms in brackets, firms as subjects, agencies after "the"); they copy no source text, come
from no generator and no template, and were written and labelled before any rule of session 18
was changed.

Labelling guideline (types: person, organization, location):
- organization: a named company, agency, ministry, court, party, alliance, union, university,
  newspaper, broadcaster, team, bank or other body, in full ("the World Health Organization": the
  span starts at "World") or as an acronym ("NATO", "the IMF"); not a product, an event, a law,
  a department named by its function ("the finance team"), a brand used as a product ("an iPhone").
- person: a person's name as written (given name and surname, a surname alone on a later
  mention); titles and roles ("President", "Dr.") are outside the span.
- location: a country, region, city, district, river, mountain range or dotted country initials
  ("U.S."); not a demonym ("Kenyan", "French"); a country is a location in every role.
- A possessive "'s" is outside the span. Nested names are not labelled inside a larger one
  ("Bank of England": one organization, "England" not a location).

Split (fixed): even-numbered sentences `dev`, odd-numbered `test`; score only `dev` while tuning.

Usage: python3 tools/ner-heldout/news18.py > data/heldout-news18.jsonl
"""

from __future__ import annotations

import sys

from marked import write

SENTENCES = [
    "[O NATO] foreign ministers met in [L Brussels] on Tuesday to discuss support for [L Ukraine].",
    "Shares of [O Siemens] fell 3 percent after the company cut its profit forecast for the year.",
    "The [O International Monetary Fund] said growth in [L sub-Saharan Africa] would slow to 3.2 percent.",
    "[O Toyota] recalled 1.2 million vehicles in [L North America] because of a faulty airbag sensor.",
    "A spokesman for the [O European Commission] declined to comment on the report.",
    "[O Reuters] reported that [O Boeing] had delayed deliveries of its new jet again.",
    "The [O World Health Organization] warned that cholera cases had doubled in [L Yemen].",
    "[P Ursula von der Leyen] told reporters in [L Strasbourg] that talks would continue.",
    "[O Microsoft] agreed to buy the game maker for $68.7 billion in cash.",
    "Analysts at [O Goldman Sachs] expect the [O Federal Reserve] to hold rates steady.",
    "The [O United Nations] Security Council will vote on the resolution on Friday.",
    "[O Nestle] said it would close two factories in [L Brazil] by the end of the year.",
    "The deal was approved by the [O Competition and Markets Authority] in [L London].",
    "[O Amnesty International] accused the security forces of using live ammunition.",
    "[P Angela Merkel] visited [L Kiev] in August, her first trip there in four years.",
    "The [O Bank of Japan] kept its negative interest rate unchanged on Thursday.",
    "Protesters gathered outside the headquarters of [O Shell] in [L The Hague].",
    "[O Samsung] posted its weakest quarterly profit in eight years as chip prices slumped.",
    "According to the [O Pentagon], about 3,000 troops will be sent to [L Poland] and [L Romania].",
    "[O UNICEF] says more than a million children have been displaced by the fighting.",
    "The [O African Union] suspended [L Mali] after the second coup in nine months.",
    "[O Airbus] and [O Rolls-Royce] are working on a hybrid engine, [P Guillaume Faury] said.",
    "Officials from the [O Taliban] met [O UN] envoys in [L Doha] last week.",
    "The [O Supreme Court] will hear the case in its next term, starting in October.",
    "[O Volkswagen] shares rose after the carmaker said chip supplies were improving.",
    "[P Tedros Adhanom Ghebreyesus], head of the [O WHO], called for a ceasefire.",
    "Police in [L Nairobi] arrested 14 people after the protest turned violent.",
    "[O Greenpeace] activists climbed the chimney of a coal plant near [L Leipzig].",
    "The [O Labour Party] won 411 seats, its best result since 1997.",
    "[O Tesla] opened its first factory in [L Europe], near [L Berlin], in March.",
    "The [O World Bank] approved a $500 million loan to [L Pakistan] for flood relief.",
    "[O Interpol] issued a red notice for the businessman, who is believed to be in [L Dubai].",
    "The [O European Central Bank] raised its key rate by half a point.",
    "Workers at [O Amazon] warehouses in [L Germany] went on strike over pay.",
    "[O Hamas] said it had received the proposal and was studying it.",
    "[P Jerome Powell] said the [O Fed] was prepared to raise rates further if needed.",
    "The [O Red Cross] delivered medical supplies to hospitals in [L Gaza].",
    "[O Ford] will cut 3,800 jobs in [L Europe] over the next three years.",
    "A court in [L Paris] fined [O Google] 150 million euros over advertising rules.",
    "[O OPEC] and its allies agreed to extend output cuts until the end of next year.",
    "The [O Kremlin] denied that [P Vladimir Putin] had been briefed on the plan.",
    "[O Unilever] named [P Hein Schumacher] as its new chief executive.",
    "[O Médecins Sans Frontières] said its clinic in [L Khartoum] had been looted.",
    "[O Nvidia] became the first chipmaker valued at more than $1 trillion.",
    "The [O Department of Justice] opened an investigation into the company's sales practices.",
    "[O Barclays] said it would move some jobs from [L London] to [L Dublin].",
    "Rescue teams from [L Turkey] and [L Greece] searched the collapsed buildings overnight.",
    "[O Oxfam] said the richest 1 percent had captured two thirds of new wealth.",
    "The [O Bundesbank] expects the German economy to shrink slightly this year.",
    "[O Apple] told suppliers to prepare for lower iPhone production, [O Bloomberg] reported.",
    "[O Hezbollah] fired rockets into northern [L Israel], the army said.",
    "The [O Federal Aviation Administration] grounded the aircraft pending inspections.",
    "[O Unicredit] is in talks to buy a stake in [O Commerzbank], people familiar with the matter said.",
    "The [O International Criminal Court] issued an arrest warrant for the former minister.",
    "[O Pfizer] and [O BioNTech] asked regulators to approve the updated vaccine.",
    "[P Lula] met [P Xi Jinping] in [L Beijing] to sign a series of trade agreements.",
    "[O Ryanair] cut its fares in [L Italy] after the airport tax was raised.",
    "The [O Organization of American States] sent observers to the election in [L Guatemala].",
    "[O Petrobras] said it had found oil off the coast of [L Rio de Janeiro].",
    "The [O Associated Press] called the race for the incumbent shortly after midnight.",
]


def main() -> int:
    return write("news18", "hand-written, session 18", SENTENCES)


if __name__ == "__main__":
    sys.exit(main())
