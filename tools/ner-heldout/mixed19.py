#!/usr/bin/env python3
"""Write data/heldout-mixed19.jsonl: sentences of several registers written and labelled by hand
for session 19 (wave18/ner), stdlib only.

Why: the dev halves of the earlier sets score 0.98 and four sessions of rules written against them
did not move the held-out test split. These sentences were written in one sitting BEFORE the
pipeline was run on any of them and before any rule of session 19 was changed; they copy no source
text, come from no generator and no template, and mix the registers in which people type names
into an assistant: chat and support requests, e-mail bodies and sign-offs, meeting notes, travel
plans, CV and profile lines, small news items, forms typed as prose. Names are real or invented,
of many countries; firms with and without a legal form; towns small and large.

Labelling guideline (types: person, organization, location), the same as
`tools/ner-heldout/news18.py`:
- organization: a named company, agency, ministry, court, party, union, university, school,
  hospital, newspaper, broadcaster, team, bank or other body, in full or as an acronym; a legal
  form is inside the span ("Brennan Logistics Ltd"); not a product, an event, a law, a department
  named by its function ("the finance team").
- person: a person's name as written (given name and surname, a given name alone, a surname
  alone on a later mention); titles and roles ("Dr.", "Mrs") are outside the span.
- location: a country, region, city, town, district, river, street address (one span from the
  house number to the end of its last part, as Veil writes addresses); not a demonym.
- A possessive "'s" and a leading "the" are outside the span. Nested names are not labelled inside
  a larger one ("Bank of Ireland": one organization).

Split (fixed): even-numbered sentences `dev`, odd-numbered `test`; score only `dev` while tuning.

Usage: python3 tools/ner-heldout/mixed19.py > data/heldout-mixed19.jsonl
"""

from __future__ import annotations

import sys

from marked import write

SENTENCES = [
    "Hi, I'm [P Tomasz Wójcik] and I work as a buyer for [O Kaufland] in [L Wrocław].",
    "Can you draft a reply to [P Priya] telling her the shipment left [L Rotterdam] yesterday?",
    "My manager at [O Deloitte] wants the report before Friday, can you shorten it?",
    "Please write a cover letter for a job at [O Spotify] in [L Stockholm].",
    "We met [P Oluwaseun Adeyemi] from [O Flutterwave] at the conference in [L Lagos].",
    "Summarize this complaint from Mrs [P Hargreaves] about her stay at the [O Hilton] in [L Leeds].",
    "[O Unilever] has appointed [P Hein Schumacher] as its new chief executive.",
    "I need to cancel my order with [O Zalando], it was supposed to arrive in [L Graz] last week.",
    "Translate this note for [P Giulia Ferraro], who joins our office in [L Bologna] on Monday.",
    "Our supplier [O Brennan Logistics Ltd] moved from [L Cork] to [L Limerick] in March.",
    "Write a thank-you message to Dr. [P Amara Nwosu] at [O St Thomas' Hospital].",
    "The flight from [L Doha] to [L Kuala Lumpur] was delayed because of a storm.",
    "Minutes: [P Kenji Watanabe] presented the budget, [P Laura Chen] will follow up with [O Accenture].",
    "Ship the samples to [L 14 Orchard Lane, Harrogate HG1 2PQ].",
    "My daughter [P Sofía] starts at the [O University of Granada] in September.",
    "The [O Red Cross] opened a shelter in [L Valencia] after the floods.",
    "Can you check whether [O Vodafone] or [O Orange] has better coverage in [L Cornwall]?",
    "[P Henrik Lund] from [O Maersk] asked for the invoice to be resent.",
    "I was born in [L Tromsø] but grew up in [L Bergen].",
    "Draft an email to the [O Dutch Tax Administration] asking about my refund.",
    "[O Infosys] reported higher revenue, chief executive [P Salil Parekh] said on Thursday.",
    "Tell [P Marcus] that the meeting with [O Siemens Healthineers] moved to 3 pm.",
    "Best regards,\n[P Elena Popescu]\nProcurement, [O Dacia]\n[L Mioveni], [L Romania]",
    "I bought the tickets through [O Booking.com] for a hotel near [L Lake Bled].",
    "We are renting a cottage in [L Keswick] from [P Alan Whitfield] for two weeks.",
    "[O Oxfam] said food prices in [L Sudan] had tripled since April.",
    "Could you rewrite this review of [O Café Central] in [L Vienna] so it sounds friendlier?",
    "The contract between [O Volvo Cars] and [O Northvolt] was cancelled.",
    "Send the signed form to [P Rajesh Kumar] at the [O State Bank of India] branch in [L Pune].",
    "My landlord, Mr [P Okonkwo], says the boiler will be fixed by Wednesday.",
    "[P Ana Beatriz Costa] works for [O Natura] in [L São Paulo] and speaks Portuguese and English.",
    "Help me plan three days in [L Kyoto] and a day trip to [L Nara].",
    "[O Greenpeace] activists boarded a tanker off the coast of [L Norway].",
    "Reminder: [P Fatima Zahra] will present the [O Nokia] case study next week.",
    "I'd like to complain about a driver from [O Uber] who took the wrong road to [L Gatwick].",
    "The patient, [P Jan Kowalczyk], was transferred to the [O Mayo Clinic] for surgery.",
    "Lunch with [P Claire] and [P Benoît] at the bistro on [L Rue Oberkampf] was lovely.",
    "The [O European Central Bank] raised rates for the tenth time in a row.",
    "[P Yusuf Demir] runs a bakery in [L Izmir] and wants a logo with a wheat motif.",
    "Please ask [O HSBC] why my transfer to [L Hong Kong] was blocked.",
    "We visited [L Chiang Mai] and then took the night train to [L Bangkok].",
    "[O Ikea] will open its first store in [L Bogotá] next year.",
    "Write a LinkedIn post congratulating [P Sven Eriksson] on ten years at [O Ericsson].",
    "Our team at [O Atlassian] uses Jira, but [P Nadia] prefers Trello.",
    "The parcel from [O DHL] is stuck in customs in [L Leipzig].",
    "Address: [L Calle de Alcalá 48, 28014 Madrid]. Contact: [P Javier Ortega].",
    "[O Toyota] and [O Panasonic] are building a battery plant in [L Himeji].",
    "I'm [P Chloe Martin], a nurse at [O Royal Victoria Infirmary] in [L Newcastle].",
    "Can you summarize what [O Greenpeace] and [O WWF] say about deep sea mining?",
    "My brother [P Diego] moved to [L Montevideo] to work for [O Mercado Libre].",
    "The mayor of [L Ghent], [P Mathias De Clercq], opened the new bridge.",
    "Please confirm the booking for [P Olga Ivanova] at [O Hotel Adlon] in [L Berlin].",
    "[O Tesco] is recalling a batch of peanut butter sold in [L Scotland].",
    "Send a reminder to [P Tariq Hassan] that his [O Etihad] flight leaves at 6.",
    "[P Ingrid Bakker] from [O ING] will call you about the mortgage.",
    "Explain why [O Nvidia] shares rose after the earnings call.",
    "He studied at [O Trinity College Dublin] before joining [O Stripe].",
    "Our warehouse in [L Duisburg] receives trucks from [L Poland] and [L Czechia].",
    "[P Hannah Schmidt] asked [O Lufthansa] for a refund of her cancelled flight to [L Lisbon].",
    "The charity [O Médecins Sans Frontières] sent a team to [L Gaza].",
]


def main() -> int:
    return write("mixed19", "hand-written, session 19", SENTENCES)


if __name__ == "__main__":
    sys.exit(main())
