/**
 * The key names are ordered by (`GET …/things?sort=name`), stored beside each thing's name
 * (`things.name_sort`, migration 0029) and compared code point by code point on both databases
 * (PostgreSQL: `collate "C"`; SQLite: its binary order), so both order names alike whatever
 * PostgreSQL's locale: case folded for all of Unicode (upper then lower case: "ß" and "SS" both
 * read "ss"), compatibility forms decomposed (NFKD: "ﬁ" reads "fi"), accents and other combining
 * marks removed. "apple", "Ärger", "élise" and "Élise", "zed", "Zoë" come in that order; equal keys are
 * ordered by id.
 */
export function nameSortKey(name: string): string {
  return name.normalize('NFKD').toUpperCase().toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');
}
