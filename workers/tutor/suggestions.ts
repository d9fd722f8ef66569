/** Follow-up prompts per intent, in the employee's language. Heuristic: no model call. */
import type { Intent } from "./intent";
import type { Language } from "../../lib/language";

const SUGGESTIONS: Record<Intent, Record<Language, string[]>> = {
  in_course: {
    es: ["Explícame esto con un ejemplo práctico", "¿Qué ejercicios hay sobre este tema?", "Resúmeme esta lección"],
    en: ["Explain this with a practical example", "Which exercises cover this topic?", "Summarise this lesson for me"],
  },
  cross_course: {
    es: ["¿Hay algún curso que cubra este tema?", "¿Dónde puedo encontrar más información sobre esto?"],
    en: ["Is there a course that covers this topic?", "Where can I find more about this?"],
  },
  progress: {
    es: ["¿Qué debería repasar hoy?", "¿Cuál es mi siguiente paso?"],
    en: ["What should I review today?", "What is my next step?"],
  },
  chitchat: {
    es: ["¿Qué puedo aprender hoy?", "Muéstrame mi progreso"],
    en: ["What can I learn today?", "Show me my progress"],
  },
  off_topic: {
    es: ["¿Qué cursos tengo pendientes?", "¿Qué puedo aprender hoy?"],
    en: ["Which courses do I have pending?", "What can I learn today?"],
  },
};

export function suggestionsFor(intent: Intent, language: Language, hasCourse: boolean): string[] {
  const list = SUGGESTIONS[intent === "in_course" && !hasCourse ? "cross_course" : intent][language];
  return list.slice(0, 3);
}
