/** Progress questions are answered from the database: enrollments, skills and reviews due. */
import { enrollmentFacts, reviewsDue, skillFacts } from "../../../db/queries/learner";
import type { Db } from "../../../db/knex";
import type { Language } from "../../../lib/language";
import type { RetrievedSource } from "./types";

const LABELS = {
  en: {
    courses: "Your courses",
    skills: "Your skills",
    reviews: "Reviews due",
    modules: "modules",
    deadline: "deadline",
    score: "score",
    level: "level",
    none: "No enrollments yet.",
  },
  es: {
    courses: "Tus cursos",
    skills: "Tus habilidades",
    reviews: "Repasos pendientes",
    modules: "módulos",
    deadline: "fecha límite",
    score: "nota",
    level: "nivel",
    none: "Todavía no tienes cursos asignados.",
  },
};

export async function progressFacts(
  db: Db,
  { orgId, userId, language }: { orgId: string; userId: string; language: Language },
): Promise<Omit<RetrievedSource, "index">[]> {
  // Labels the model reads as sources; languages without their own fall back to English.
  const t = LABELS[language === "es" ? "es" : "en"];
  const [enrollments, skills, due] = await Promise.all([enrollmentFacts(db, orgId, userId), skillFacts(db, orgId, userId), reviewsDue(db, orgId, userId)]);
  const courseLines = enrollments.map((e) => {
    const parts = [`${e.completed_modules}/${e.total_modules} ${t.modules}`];
    if (e.deadline) parts.push(`${t.deadline}: ${new Date(e.deadline).toISOString().slice(0, 10)}`);
    if (e.score !== null) parts.push(`${t.score}: ${Math.round(Number(e.score) * 100)}%`);
    return `- ${e.title}: ${e.status} (${parts.join(", ")})`;
  });
  const sources: Omit<RetrievedSource, "index">[] = [
    { document: t.courses, section: null, page: null, sourceType: "progress", sourceId: null, content: courseLines.join("\n") || t.none },
  ];
  if (skills.length > 0) {
    const lines = skills.map((s) => `- ${s.name}${s.category ? ` (${s.category})` : ""}: ${t.level} ${s.level}/5`);
    sources.push({ document: t.skills, section: null, page: null, sourceType: "progress", sourceId: null, content: lines.join("\n") });
  }
  sources.push({ document: t.reviews, section: null, page: null, sourceType: "progress", sourceId: null, content: `${due}` });
  return sources;
}
