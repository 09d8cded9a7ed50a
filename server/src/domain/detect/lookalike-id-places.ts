// The places of an id's own letters, for the national ids whose letters stand before and after a
// run of digits (session 17, wave16/evade): `AB123456C` (NINO: two letters, six digits, a suffix),
// `12345678Z` (DNI: eight digits, a check letter), `X1234567L` (NIE: a prefix letter, seven
// digits, a check letter), `S1234567D` (NRIC/FIN: the same shape). Between those places a valid id
// holds digits only, so a look-alike letter there (`O`, `o`, `I`, `l`) stands for a digit: detection
// reads the word so in each of the shapes below (detect/lookalike-ids.ts) and keeps an id only where
// the id's detector accepts the reading exactly over the word and the id's word stands before it;
// normalization reads a detected id of these types the same way (token/normalize.ts), so the
// look-alike spelling shares the plain id's token and erasure. One table for both: a type added
// here is read by both (session 16 had the three shapes written out in each file).

/** Per type: how many of the id's own letters stand before its digits (`head`) and after them (`tail`), and its length. */
export const ID_LETTER_PLACES: Readonly<Record<string, { readonly head: number; readonly tail: number; readonly length: number }>> = {
  uk_nino: { head: 2, tail: 1, length: 9 },
  es_dni: { head: 0, tail: 1, length: 9 },
  es_nie: { head: 1, tail: 1, length: 9 },
  sg_nric: { head: 1, tail: 1, length: 9 },
};

/** The distinct `head` counts of the table, ascending: the readings detection tries for one word. */
export const ID_HEADS: readonly number[] = [...new Set(Object.values(ID_LETTER_PLACES).map((places) => places.head))].sort((a, b) => a - b);

/** The most letters any of the ids holds before its digits. */
export const MAX_ID_HEAD: number = Math.max(...ID_HEADS);
