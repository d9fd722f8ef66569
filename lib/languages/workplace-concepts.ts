/**
 * The workplace concepts every language pack names in its own words (`workplaceTerms`), so a
 * question in one language meets material in another: "congés" in a French question is met by
 * "leave" in an English policy and "Urlaub" in a German one. A closed list, so the compiler
 * refuses a pack that lacks a concept. The concepts are the subjects company material is about
 * (leave, sickness, expenses, travel, working time, IT security, safety, training, new hires) and the units
 * and places such questions name; a word that stands for two things ("vol", theft and flight in
 * French; "holiday", time off and the season in English) is left out rather than guessed.
 */
export const WORKPLACE_CONCEPTS = [
  "timeOff",
  "advance",
  "work",
  "leave",
  "sick",
  "medicalNote",
  "overtime",
  "rest",
  "expenses",
  "receipt",
  "refund",
  "pay",
  "salary",
  "hotel",
  "night",
  "meal",
  "allowance",
  "trip",
  "booking",
  "abroad",
  "car",
  "distance",
  "password",
  "computer",
  "phone",
  "loss",
  "email",
  "suspicious",
  "attachment",
  "training",
  "language",
  "probation",
  "newHire",
  "manager",
  "safety",
  "equipment",
  "forklift",
  "warehouse",
  "speed",
  "accident",
  "notify",
  "submit",
  "approval",
  "wedding",
  "colleague",
  "day",
  "week",
  "month",
  "year",
  "hour",
  "minute",
  "france",
  "germany",
  "spain",
  "portugal",
  "italy",
] as const;

export type WorkplaceConcept = (typeof WORKPLACE_CONCEPTS)[number];

/** Concepts that name where an employee works rather than what they ask: they weigh as everyday words. */
export const PLACE_CONCEPTS: readonly WorkplaceConcept[] = ["france", "germany", "spain", "portugal", "italy"];
