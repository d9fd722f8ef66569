/**
 * What the tutor and the offline model say to an employee in every catalog language: the prompt's
 * language instruction, the fixed replies (greetings, thanks, the openings of an extractive or a
 * general answer, the reply on health topics) and the follow-up suggestions.
 */
import type { CatalogLanguage } from "../messages";

/** Follow-up prompts, keyed by the tutor's intents (workers/tutor/intent.ts). */
export interface Suggestions {
  in_course: string[];
  cross_course: string[];
  progress: string[];
  chitchat: string[];
  off_topic: string[];
}

/** The tutor's fixed sentences of one language (the offline model answers with the same ones). */
export interface TutorLines {
  /** The prompt's language instruction, in the language itself, beside its English version. */
  answerIn: string;
  greeting: string;
  thanks: string;
  /** Opens an extractive answer from company material. */
  accordingTo: string;
  /** Opens an answer on the general rung: the employee must know it is not company material. */
  notCompanyMaterial: string;
  /** `materialIn("espagnol")`: the material quoted is in another language than the question. */
  materialIn: (language: string) => string;
  generalAbout: (topic: string) => string;
  yourQuestion: string;
  /** On health, disability or neurodivergence: supportive, no diagnosis, where to turn. */
  sensitiveTopic: string;
  suggestions: Suggestions;
}

export const TUTOR_LINES: Record<CatalogLanguage, TutorLines> = {
  en: {
    answerIn: "Always answer in English.",
    greeting: "Hello! I'm your learning assistant. How can I help you with your courses today?",
    thanks: "You're welcome! If you have more questions about your courses, I'm here to help.",
    accordingTo: "According to the company material:",
    notCompanyMaterial: "This is not from company material:",
    materialIn: (language) => `The company material on this is in ${language}; here is what it says:`,
    generalAbout: (topic) =>
      `In general terms, about "${topic}": review the key points, apply them step by step, and confirm the details with your manager or your course material.`,
    yourQuestion: "your question",
    sensitiveTopic:
      "Thank you for trusting me with this. I can't tell whether you have a condition or diagnose anything, and nobody should from a chat: a doctor or another qualified professional can. If it affects your work or learning, HR can talk with you in confidence about support and adjustments. I'm happy to help with your courses in whatever way works best for you.",
    suggestions: {
      in_course: ["Explain this with a practical example", "Which exercises cover this topic?", "Summarise this lesson for me"],
      cross_course: ["Is there a course that covers this topic?", "Where can I find more about this?"],
      progress: ["What should I review today?", "What is my next step?"],
      chitchat: ["What can I learn today?", "Show me my progress"],
      off_topic: ["Which courses do I have pending?", "What can I learn today?"],
    },
  },
  es: {
    answerIn: "Responde siempre en español.",
    greeting: "¡Hola! Soy tu asistente de aprendizaje. ¿En qué puedo ayudarte hoy con tus cursos?",
    thanks: "¡De nada! Si tienes más preguntas sobre tus cursos, aquí estoy.",
    accordingTo: "Según el material de la empresa:",
    notCompanyMaterial: "Esto no proviene del material de la empresa:",
    materialIn: (language) => `El material de la empresa sobre esto está en ${language}; esto es lo que dice:`,
    generalAbout: (topic) =>
      `En términos generales, sobre "${topic}": conviene revisar los puntos clave, aplicarlos paso a paso y confirmar los detalles con tu responsable o con el material de tu curso.`,
    yourQuestion: "tu pregunta",
    sensitiveTopic:
      "Gracias por contármelo. No puedo saber si tienes una condición ni hacer un diagnóstico, y nadie debería hacerlo por chat: un médico u otro profesional cualificado sí puede. Si afecta a tu trabajo o a tu aprendizaje, Recursos Humanos puede hablar contigo de forma confidencial sobre apoyos y adaptaciones. Con gusto te ayudo con tus cursos de la forma que mejor te funcione.",
    suggestions: {
      in_course: ["Explícame esto con un ejemplo práctico", "¿Qué ejercicios hay sobre este tema?", "Resúmeme esta lección"],
      cross_course: ["¿Hay algún curso que cubra este tema?", "¿Dónde puedo encontrar más información sobre esto?"],
      progress: ["¿Qué debería repasar hoy?", "¿Cuál es mi siguiente paso?"],
      chitchat: ["¿Qué puedo aprender hoy?", "Muéstrame mi progreso"],
      off_topic: ["¿Qué cursos tengo pendientes?", "¿Qué puedo aprender hoy?"],
    },
  },
  fr: {
    answerIn: "Réponds toujours en français.",
    greeting: "Bonjour ! Je suis ton assistant d'apprentissage. Comment puis-je t'aider dans tes cours aujourd'hui ?",
    thanks: "Avec plaisir ! Si tu as d'autres questions sur tes cours, je suis là.",
    accordingTo: "D'après la documentation de l'entreprise :",
    notCompanyMaterial: "Ceci ne provient pas de la documentation de l'entreprise :",
    materialIn: (language) => `La documentation de l'entreprise sur ce sujet est en ${language} ; voici ce qu'elle dit :`,
    generalAbout: (topic) =>
      `De manière générale, à propos de « ${topic} » : reprends les points clés, applique-les étape par étape et vérifie les détails avec ton responsable ou le contenu de ton cours.`,
    yourQuestion: "ta question",
    sensitiveTopic:
      "Merci de me faire confiance. Je ne peux pas savoir si tu as un trouble ni poser de diagnostic, et personne ne devrait le faire par chat : un médecin ou un autre professionnel qualifié le peut. Si cela touche ton travail ou ta formation, les RH peuvent en parler avec toi en toute confidentialité, pour un accompagnement ou des aménagements. Je t'aide volontiers dans tes cours de la façon qui te convient le mieux.",
    suggestions: {
      in_course: ["Explique-moi cela avec un exemple concret", "Quels exercices portent sur ce sujet ?", "Résume-moi cette leçon"],
      cross_course: ["Existe-t-il un cours sur ce sujet ?", "Où trouver plus d'informations à ce sujet ?"],
      progress: ["Que devrais-je réviser aujourd'hui ?", "Quelle est ma prochaine étape ?"],
      chitchat: ["Que puis-je apprendre aujourd'hui ?", "Montre-moi ma progression"],
      off_topic: ["Quels cours me restent à faire ?", "Que puis-je apprendre aujourd'hui ?"],
    },
  },
  de: {
    answerIn: "Antworte immer auf Deutsch.",
    greeting: "Hallo! Ich bin dein Lernassistent. Wie kann ich dir heute bei deinen Kursen helfen?",
    thanks: "Gern geschehen! Wenn du weitere Fragen zu deinen Kursen hast, bin ich da.",
    accordingTo: "Laut den Unterlagen des Unternehmens:",
    notCompanyMaterial: "Das stammt nicht aus den Unterlagen des Unternehmens:",
    materialIn: (language) => `Die Unterlagen des Unternehmens dazu sind auf ${language}; das steht darin:`,
    generalAbout: (topic) =>
      `Allgemein zu „${topic}“: Geh die wichtigsten Punkte durch, wende sie Schritt für Schritt an und kläre die Details mit deiner Führungskraft oder anhand deines Kursmaterials.`,
    yourQuestion: "deine Frage",
    sensitiveTopic:
      "Danke, dass du mir das anvertraust. Ich kann nicht feststellen, ob du eine Erkrankung hast, und keine Diagnose stellen – das sollte niemand in einem Chat tun, eine Ärztin, ein Arzt oder eine andere Fachperson schon. Wenn es deine Arbeit oder dein Lernen betrifft, kann die Personalabteilung (HR) vertraulich mit dir über Unterstützung und Anpassungen sprechen. Bei deinen Kursen helfe ich dir gern so, wie es für dich am besten passt.",
    suggestions: {
      in_course: ["Erkläre mir das an einem praktischen Beispiel", "Welche Übungen gibt es zu diesem Thema?", "Fasse diese Lektion für mich zusammen"],
      cross_course: ["Gibt es einen Kurs zu diesem Thema?", "Wo finde ich mehr dazu?"],
      progress: ["Was sollte ich heute wiederholen?", "Was ist mein nächster Schritt?"],
      chitchat: ["Was kann ich heute lernen?", "Zeig mir meinen Fortschritt"],
      off_topic: ["Welche Kurse habe ich noch offen?", "Was kann ich heute lernen?"],
    },
  },
  pt: {
    answerIn: "Responda sempre em português.",
    greeting: "Olá! Sou o seu assistente de aprendizagem. Como posso ajudar com os seus cursos hoje?",
    thanks: "De nada! Se tiver mais perguntas sobre os seus cursos, estou aqui.",
    accordingTo: "De acordo com o material da empresa:",
    notCompanyMaterial: "Isto não vem do material da empresa:",
    materialIn: (language) => `O material da empresa sobre isto está em ${language}; eis o que diz:`,
    generalAbout: (topic) =>
      `De forma geral, sobre "${topic}": reveja os pontos principais, aplique-os passo a passo e confirme os detalhes com o seu gestor ou com o material do seu curso.`,
    yourQuestion: "a sua pergunta",
    sensitiveTopic:
      "Obrigado por confiar isto a mim. Não posso saber se tem uma condição nem fazer um diagnóstico, e ninguém deveria fazê-lo por chat: um médico ou outro profissional qualificado pode. Se isto afeta o seu trabalho ou a sua aprendizagem, os Recursos Humanos podem conversar consigo de forma confidencial sobre apoio e adaptações. Ajudo com gosto nos seus cursos da forma que funcionar melhor para si.",
    suggestions: {
      in_course: ["Explique isto com um exemplo prático", "Que exercícios abordam este tema?", "Resuma esta lição para mim"],
      cross_course: ["Há algum curso que aborde este tema?", "Onde posso encontrar mais sobre isto?"],
      progress: ["O que devo rever hoje?", "Qual é o meu próximo passo?"],
      chitchat: ["O que posso aprender hoje?", "Mostre o meu progresso"],
      off_topic: ["Que cursos tenho pendentes?", "O que posso aprender hoje?"],
    },
  },
  it: {
    answerIn: "Rispondi sempre in italiano.",
    greeting: "Ciao! Sono il tuo assistente di apprendimento. Come posso aiutarti oggi con i tuoi corsi?",
    thanks: "Prego! Se hai altre domande sui tuoi corsi, sono qui.",
    accordingTo: "Secondo il materiale dell'azienda:",
    notCompanyMaterial: "Questo non proviene dal materiale dell'azienda:",
    materialIn: (language) => `Il materiale dell'azienda su questo è in ${language}; ecco cosa dice:`,
    generalAbout: (topic) =>
      `In termini generali, su "${topic}": rivedi i punti chiave, applicali passo dopo passo e verifica i dettagli con il tuo responsabile o con il materiale del corso.`,
    yourQuestion: "la tua domanda",
    sensitiveTopic:
      "Grazie per avermelo detto. Non posso sapere se hai una condizione né fare una diagnosi, e nessuno dovrebbe farlo in una chat: un medico o un altro professionista qualificato sì. Se incide sul tuo lavoro o sul tuo apprendimento, le Risorse Umane possono parlarne con te in modo riservato per trovare supporto e adattamenti. Ti aiuto volentieri con i tuoi corsi nel modo che funziona meglio per te.",
    suggestions: {
      in_course: ["Spiegamelo con un esempio pratico", "Quali esercizi trattano questo argomento?", "Riassumimi questa lezione"],
      cross_course: ["C'è un corso che tratta questo argomento?", "Dove posso trovare altre informazioni su questo?"],
      progress: ["Cosa dovrei ripassare oggi?", "Qual è il mio prossimo passo?"],
      chitchat: ["Cosa posso imparare oggi?", "Mostrami i miei progressi"],
      off_topic: ["Quali corsi ho in sospeso?", "Cosa posso imparare oggi?"],
    },
  },
};
