/**
 * A realistic catalog as an LMS would send it (for the import tests and the bench): courses in
 * several languages with modules and Markdown lessons of a few paragraphs, exercises, skills, and
 * people's enrolments, skill levels and attempts — in a shuffled order, since a file exported
 * from another system has no reason to list parents first — plus, optionally, a few bad lines.
 */
const LANGUAGES = ["en", "es", "fr", "de", "pt"];
const WORDS =
  "safety customer refund warehouse forklift escalation policy manager approval inventory shipment return exchange warranty training schedule shift badge incident report".split(
    " ",
  );

export interface CatalogShape {
  courses: number;
  modulesPerCourse: number;
  lessonsPerModule: number;
  /** People enrolled in every course is `people × courses` enrolments: choose `enrolmentsPerPerson` ≤ courses. */
  people: number;
  enrolmentsPerPerson: number;
  /** Bad lines mixed in (unknown references, invalid records, broken JSON). */
  badLines?: number;
}

/** Deterministic pseudo-random numbers, so a run and its re-run send the same file. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function paragraph(next: () => number, words = 60): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
}

/** People the catalog's records name: their emails (and SCIM ids for half of them). */
export function catalogPeople(prefix: string, count: number): Array<{ email: string; external_id: string | null }> {
  return Array.from({ length: count }, (_, i) => ({ email: `${prefix}-p${i}@example.com`, external_id: i % 2 === 0 ? `${prefix}-hr-${i}` : null }));
}

/** The catalog as NDJSON lines, and how many records of each kind it has. */
export function realisticCatalog(prefix: string, shape: CatalogShape): { lines: string[]; counts: Record<string, number> } {
  const next = random(42);
  const records: unknown[] = [];
  records.push({ type: "skill_category", external_id: "cat-ops", name: "Operations" });
  for (let s = 0; s < 20; s++) records.push({ type: "skill", external_id: `skill-${s}`, name: `Skill ${s}`, category: "cat-ops" });
  for (let c = 0; c < shape.courses; c++) {
    records.push({
      type: "course",
      external_id: `course-${c}`,
      title: `Course ${c}: ${WORDS[c % WORDS.length]}`,
      language: LANGUAGES[c % LANGUAGES.length],
      description: paragraph(next, 20),
    });
    for (let m = 0; m < shape.modulesPerCourse; m++) {
      records.push({
        type: "module",
        external_id: `module-${c}-${m}`,
        course: `course-${c}`,
        title: `Module ${m + 1}`,
        summary: paragraph(next, 15),
        position: m + 1,
      });
      for (let l = 0; l < shape.lessonsPerModule; l++) {
        const id = `lesson-${c}-${m}-${l}`;
        records.push({
          type: "lesson",
          external_id: id,
          module: `module-${c}-${m}`,
          title: `Lesson ${l + 1}`,
          content: `# Lesson ${l + 1}\n\n${paragraph(next)}\n\n## Practice\n\n- ${paragraph(next, 12)}\n- ${paragraph(next, 12)}\n\n${paragraph(next)}`,
          position: l + 1,
        });
        if (l === 0)
          records.push({
            type: "exercise",
            external_id: `exercise-${c}-${m}`,
            lesson: id,
            prompt: "What comes first?",
            kind: "multiple_choice",
            answer: { correct: 0 },
          });
      }
    }
  }
  const people = catalogPeople(prefix, shape.people);
  people.forEach((person, p) => {
    const ref = person.external_id ? { external_id: person.external_id } : { email: person.email };
    for (let e = 0; e < shape.enrolmentsPerPerson; e++) {
      const course = (p + e) % shape.courses;
      const completed = next() < 0.3;
      records.push({
        type: "enrollment",
        person: ref,
        course: `course-${course}`,
        status: completed ? "completed" : next() < 0.5 ? "in_progress" : "not_started",
        deadline: "2027-03-31T00:00:00Z",
        ...(completed ? { score: Math.round(next() * 1000) / 1000, completed_at: "2026-11-15T10:00:00Z" } : {}),
      });
    }
    records.push({ type: "skill_level", person: ref, skill: `skill-${p % 20}`, level: 1 + (p % 5) });
    records.push({
      type: "exercise_attempt",
      external_id: `attempt-${p}`,
      exercise: `exercise-${p % shape.courses}-0`,
      person: ref,
      score: 0.5,
      passed: p % 3 !== 0,
    });
  });
  const counts: Record<string, number> = {};
  for (const record of records) counts[(record as { type: string }).type] = (counts[(record as { type: string }).type] ?? 0) + 1;
  // Shuffle (Fisher–Yates on the seeded numbers): the import must put parents first itself.
  for (let i = records.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [records[i], records[j]] = [records[j], records[i]];
  }
  const lines = records.map((record) => JSON.stringify(record));
  for (let b = 0; b < (shape.badLines ?? 0); b++) {
    const at = Math.floor(next() * lines.length);
    const bad = [
      JSON.stringify({ type: "enrollment", person: { email: people[0]!.email }, course: `missing-course-${b}`, status: "completed" }),
      JSON.stringify({ type: "lesson", external_id: `bad-${b}`, module: "module-0-0", title: "", content: "x", position: 1 }),
      `{"type": "course", broken ${b}`,
    ][b % 3]!;
    lines.splice(at, 0, bad);
  }
  return { lines, counts };
}
