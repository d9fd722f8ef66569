/**
 * The product's fixed sentences, in every language it writes them in: the one catalog, so no
 * sentence a person reads is scattered as a string beside the code that says it. The tutor's
 * prompt instruction, the offline model's fixed replies (greetings, the general-rung notice, "the
 * material is in another language", the reply on health topics) and the follow-up suggestions
 * read from here. Any other language falls back to English (`messagesFor`), while the tutor is
 * still asked to answer in the employee's own language (workers/tutor/prompts.ts).
 */
import { languageName, type Language } from "./language";

export const CATALOG_LANGUAGES = ["en", "es", "fr", "de", "pt", "it"] as const;
export type CatalogLanguage = (typeof CATALOG_LANGUAGES)[number];

/** The language whose sentences are used for `language`: itself when the catalog has it, else English. */
export function catalogLanguage(language: Language): CatalogLanguage {
  return (CATALOG_LANGUAGES as readonly string[]).includes(language) ? (language as CatalogLanguage) : "en";
}

/** Follow-up prompts, keyed by the tutor's intents (workers/tutor/intent.ts). */
export interface Suggestions {
  in_course: string[];
  cross_course: string[];
  progress: string[];
  chitchat: string[];
  off_topic: string[];
}

/** What an admin action's fixed sentences say about it (workers/admin/replies.ts fills these from the action's row). */
export interface ActionFacts {
  preview: string;
  total: number;
  status: string;
  expiresAt: Date;
}

/**
 * The admin assistant's fixed sentences about a pending action: confirming, rejecting and "still
 * pending" are decided by code, so their words are fixed too. Every language tells the admin to
 * reply with its own plain yes or no ("oui"/"non", "ja"/"nein", "sim"/"não"), words the
 * confirmation rule reads (workers/admin/confirmation.ts; the messages test checks it).
 */
export interface ActionLines {
  /** " and 3 more" after the first labels. */
  andMore: (rest: number) => string;
  confirmed: (a: ActionFacts) => string;
  rejected: (a: ActionFacts) => string;
  stillPending: (a: ActionFacts) => string;
  supersededPrefix: string;
  pendingFooter: (a: ActionFacts, items: string) => string;
  notYetShown: (a: ActionFacts) => string;
  stillPendingFooter: (a: ActionFacts) => string;
  expired: (a: ActionFacts) => string;
  /** Told to the model (a tool result), not the admin. */
  writeBlocked: string;
  alreadyDecided: (a: ActionFacts) => string;
}

const time = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
const guillemets = (text: string) => `«${text}»`;
const curly = (text: string) => `“${text}”`;
const low = (text: string) => `„${text}“`;

export interface Messages {
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
  action: ActionLines;
  /** A turn that could not finish (workers/turns/stage-failure.ts): what happened, and what to do. */
  turnFailure: TurnFailureLines;
}

/** Who could not finish an answer: the tutor, or the admin's assistant. */
export type FailedAgent = "tutor" | "admin";

export interface TurnFailureLines {
  lost: string;
  databaseTimeout: string;
  couldNotFinish: (agent: FailedAgent) => string;
  sendAgain: string;
  sendAgainSoon: string;
  /** Said with an error that a retry will follow: the answer starts over. */
  retrying: string;
}

const MESSAGES: Record<CatalogLanguage, Messages> = {
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
    turnFailure: {
      lost: "This answer was lost before it finished.",
      databaseTimeout: "The database took too long to answer, so this answer was stopped.",
      couldNotFinish: (agent) => `${agent === "admin" ? "The assistant" : "The tutor"} could not finish this answer.`,
      sendAgain: "Send the message again.",
      sendAgainSoon: "Send the message again in a moment.",
      retrying: "Retrying automatically; the answer will restart.",
    },
    action: {
      andMore: (rest) => ` and ${rest} more`,
      confirmed: (a) => `Confirmed. Running ${curly(a.preview)} (${a.total} items). Progress shows here and I will tell you when it is done.`,
      rejected: (a) => `Cancelled: ${curly(a.preview)}. Nothing was changed.`,
      stillPending: (a) =>
        `I did not read that as a plain yes or no, so nothing has run and the action is still pending: ${curly(a.preview)}. To run it, press Confirm or reply with a plain “yes”; to cancel it, reply “no”.`,
      supersededPrefix: "I cancelled the previous proposal (nothing was changed).\n\n",
      pendingFooter: (a, items) =>
        `\n\nNothing has changed yet. Proposed: ${curly(a.preview)} — ${a.total} ${a.total === 1 ? "item" : "items"}: ${items}. ` +
        `Reply “yes” to run exactly this or “no” to cancel it (expires ${time(a.expiresAt)}).`,
      notYetShown: (a) =>
        `Your message arrived before I had shown you the proposal, so I did not run it: ${curly(a.preview)} (${a.total} items). Reply “yes” to run it or “no” to cancel it.`,
      stillPendingFooter: (a) =>
        `\n\nNothing has run: ${curly(a.preview)} is still pending, waiting for your confirmation. To run it, press Confirm or reply with a plain “yes”; to cancel it, reply “no”.`,
      expired: (a) => `The action ${curly(a.preview)} expired unconfirmed and did not run. Ask again and I will prepare a fresh proposal.`,
      writeBlocked: "An action is already waiting for confirmation in this conversation; ask the admin to confirm or cancel it before proposing another.",
      alreadyDecided: (a) => `The action ${curly(a.preview)} is already ${a.status}; there is nothing pending to confirm.`,
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
    turnFailure: {
      lost: "Esta respuesta se perdió antes de terminar.",
      databaseTimeout: "La base de datos tardó demasiado en responder, así que esta respuesta se detuvo.",
      couldNotFinish: (agent) => `${agent === "admin" ? "El asistente" : "El tutor"} no pudo terminar esta respuesta.`,
      sendAgain: "Envía el mensaje otra vez.",
      sendAgainSoon: "Envía el mensaje otra vez dentro de un momento.",
      retrying: "Reintentando automáticamente; la respuesta empezará de nuevo.",
    },
    action: {
      andMore: (rest) => ` y ${rest} más`,
      confirmed: (a) => `Confirmado. Ejecutando ${guillemets(a.preview)} (${a.total} elementos). Verás el progreso aquí y te avisaré al terminar.`,
      rejected: (a) => `Cancelado: ${guillemets(a.preview)}. No se ha cambiado nada.`,
      stillPending: (a) =>
        `No lo he entendido como un sí o un no claros, así que no se ha ejecutado nada y la acción sigue pendiente: ${guillemets(a.preview)}. Para ejecutarla, pulsa el botón Confirm o responde solo «sí»; para cancelarla, responde «no».`,
      supersededPrefix: "He cancelado la propuesta anterior (no se cambió nada).\n\n",
      pendingFooter: (a, items) =>
        `\n\nTodavía no se ha cambiado nada. Propuesta: ${guillemets(a.preview)} — ${a.total} ${a.total === 1 ? "elemento" : "elementos"}: ${items}. ` +
        `Responde «sí» para ejecutar exactamente esto o «no» para cancelarlo (caduca el ${time(a.expiresAt)}).`,
      notYetShown: (a) =>
        `Tu mensaje llegó antes de que te mostrara la propuesta, así que no la he ejecutado: ${guillemets(a.preview)} (${a.total} elementos). Responde «sí» para ejecutarla o «no» para cancelarla.`,
      stillPendingFooter: (a) =>
        `\n\nNo se ha ejecutado nada: ${guillemets(a.preview)} sigue pendiente, esperando tu confirmación. Para ejecutarla, pulsa el botón Confirm o responde solo «sí»; para cancelarla, responde «no».`,
      expired: (a) => `La acción ${guillemets(a.preview)} caducó sin confirmarse y no se ejecutó. Pídemela de nuevo para preparar una propuesta actualizada.`,
      writeBlocked: "Ya hay una acción esperando confirmación en esta conversación; pide al admin que la confirme o la cancele antes de proponer otra.",
      alreadyDecided: (a) => `La acción ${guillemets(a.preview)} ya está en estado «${a.status}»; no hay nada pendiente de confirmar.`,
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
    turnFailure: {
      lost: "Cette réponse a été perdue avant d'être terminée.",
      databaseTimeout: "La base de données a mis trop de temps à répondre, cette réponse a donc été arrêtée.",
      couldNotFinish: (agent) => `${agent === "admin" ? "L'assistant" : "Le tuteur"} n'a pas pu terminer cette réponse.`,
      sendAgain: "Envoie le message à nouveau.",
      sendAgainSoon: "Envoie le message à nouveau dans un instant.",
      retrying: "Nouvel essai automatique ; la réponse va recommencer.",
    },
    action: {
      andMore: (rest) => ` et ${rest} de plus`,
      confirmed: (a) => `Confirmé. Exécution de ${guillemets(a.preview)} (${a.total} éléments). La progression s'affiche ici et je te préviendrai à la fin.`,
      rejected: (a) => `Annulé : ${guillemets(a.preview)}. Rien n'a été modifié.`,
      stillPending: (a) =>
        `Je n'ai pas compris cela comme un oui ou un non clair : rien n'a été exécuté et l'action est toujours en attente : ${guillemets(a.preview)}. Pour l'exécuter, appuie sur le bouton Confirm ou réponds simplement « oui » ; pour l'annuler, réponds « non ».`,
      supersededPrefix: "J'ai annulé la proposition précédente (rien n'a été modifié).\n\n",
      pendingFooter: (a, items) =>
        `\n\nRien n'a encore changé. Proposition : ${guillemets(a.preview)} — ${a.total} ${a.total === 1 ? "élément" : "éléments"} : ${items}. ` +
        `Réponds « oui » pour exécuter exactement ceci ou « non » pour l'annuler (expire le ${time(a.expiresAt)}).`,
      notYetShown: (a) =>
        `Ton message est arrivé avant que je te montre la proposition, je ne l'ai donc pas exécutée : ${guillemets(a.preview)} (${a.total} éléments). Réponds « oui » pour l'exécuter ou « non » pour l'annuler.`,
      stillPendingFooter: (a) =>
        `\n\nRien n'a été exécuté : ${guillemets(a.preview)} est toujours en attente de ta confirmation. Pour l'exécuter, appuie sur le bouton Confirm ou réponds simplement « oui » ; pour l'annuler, réponds « non ».`,
      expired: (a) =>
        `L'action ${guillemets(a.preview)} a expiré sans confirmation et n'a pas été exécutée. Redemande-la et je préparerai une nouvelle proposition.`,
      writeBlocked:
        "Une action attend déjà une confirmation dans cette conversation ; demande à l'admin de la confirmer ou de l'annuler avant d'en proposer une autre.",
      alreadyDecided: (a) => `L'action ${guillemets(a.preview)} est déjà à l'état « ${a.status} » ; il n'y a rien à confirmer.`,
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
    turnFailure: {
      lost: "Diese Antwort ging verloren, bevor sie fertig war.",
      databaseTimeout: "Die Datenbank hat zu lange gebraucht, daher wurde diese Antwort abgebrochen.",
      couldNotFinish: (agent) => `${agent === "admin" ? "Der Assistent" : "Der Tutor"} konnte diese Antwort nicht beenden.`,
      sendAgain: "Sende die Nachricht noch einmal.",
      sendAgainSoon: "Sende die Nachricht gleich noch einmal.",
      retrying: "Wird automatisch wiederholt; die Antwort beginnt neu.",
    },
    action: {
      andMore: (rest) => ` und ${rest} weitere`,
      confirmed: (a) =>
        `Bestätigt. ${low(a.preview)} wird ausgeführt (${a.total} Einträge). Der Fortschritt erscheint hier, und ich sage dir Bescheid, wenn es fertig ist.`,
      rejected: (a) => `Abgebrochen: ${low(a.preview)}. Es wurde nichts geändert.`,
      stillPending: (a) =>
        `Das habe ich nicht als klares Ja oder Nein verstanden, daher wurde nichts ausgeführt und die Aktion wartet weiter: ${low(a.preview)}. Zum Ausführen drücke Confirm oder antworte nur „ja“; zum Abbrechen antworte „nein“.`,
      supersededPrefix: "Ich habe den vorherigen Vorschlag abgebrochen (es wurde nichts geändert).\n\n",
      pendingFooter: (a, items) =>
        `\n\nNoch wurde nichts geändert. Vorschlag: ${low(a.preview)} — ${a.total} ${a.total === 1 ? "Eintrag" : "Einträge"}: ${items}. ` +
        `Antworte „ja“, um genau das auszuführen, oder „nein“, um es abzubrechen (läuft ab am ${time(a.expiresAt)}).`,
      notYetShown: (a) =>
        `Deine Nachricht kam, bevor ich dir den Vorschlag gezeigt hatte, daher habe ich ihn nicht ausgeführt: ${low(a.preview)} (${a.total} Einträge). Antworte „ja“, um ihn auszuführen, oder „nein“, um ihn abzubrechen.`,
      stillPendingFooter: (a) =>
        `\n\nEs wurde nichts ausgeführt: ${low(a.preview)} wartet weiter auf deine Bestätigung. Zum Ausführen drücke Confirm oder antworte nur „ja“; zum Abbrechen antworte „nein“.`,
      expired: (a) =>
        `Die Aktion ${low(a.preview)} ist unbestätigt abgelaufen und wurde nicht ausgeführt. Frag noch einmal, dann bereite ich einen neuen Vorschlag vor.`,
      writeBlocked:
        "In diesem Gespräch wartet bereits eine Aktion auf Bestätigung; bitte den Admin, sie zu bestätigen oder abzubrechen, bevor du eine weitere vorschlägst.",
      alreadyDecided: (a) => `Die Aktion ${low(a.preview)} hat bereits den Status „${a.status}“; es gibt nichts zu bestätigen.`,
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
    turnFailure: {
      lost: "Esta resposta perdeu-se antes de terminar.",
      databaseTimeout: "A base de dados demorou demasiado a responder, por isso esta resposta foi interrompida.",
      couldNotFinish: (agent) => `${agent === "admin" ? "O assistente" : "O tutor"} não conseguiu terminar esta resposta.`,
      sendAgain: "Envie a mensagem novamente.",
      sendAgainSoon: "Envie a mensagem novamente daqui a pouco.",
      retrying: "A repetir automaticamente; a resposta vai recomeçar.",
    },
    action: {
      andMore: (rest) => ` e mais ${rest}`,
      confirmed: (a) => `Confirmado. A executar ${curly(a.preview)} (${a.total} itens). O progresso aparece aqui e aviso quando terminar.`,
      rejected: (a) => `Cancelado: ${curly(a.preview)}. Nada foi alterado.`,
      stillPending: (a) =>
        `Não entendi isso como um sim ou um não claros, por isso nada foi executado e a ação continua pendente: ${curly(a.preview)}. Para executá-la, carregue em Confirm ou responda apenas “sim”; para cancelá-la, responda “não”.`,
      supersededPrefix: "Cancelei a proposta anterior (nada foi alterado).\n\n",
      pendingFooter: (a, items) =>
        `\n\nAinda nada mudou. Proposta: ${curly(a.preview)} — ${a.total} ${a.total === 1 ? "item" : "itens"}: ${items}. ` +
        `Responda “sim” para executar exatamente isto ou “não” para cancelar (expira a ${time(a.expiresAt)}).`,
      notYetShown: (a) =>
        `A sua mensagem chegou antes de eu lhe mostrar a proposta, por isso não a executei: ${curly(a.preview)} (${a.total} itens). Responda “sim” para executá-la ou “não” para cancelá-la.`,
      stillPendingFooter: (a) =>
        `\n\nNada foi executado: ${curly(a.preview)} continua pendente, à espera da sua confirmação. Para executá-la, carregue em Confirm ou responda apenas “sim”; para cancelá-la, responda “não”.`,
      expired: (a) => `A ação ${curly(a.preview)} expirou sem confirmação e não foi executada. Peça novamente e preparo uma nova proposta.`,
      writeBlocked: "Já há uma ação à espera de confirmação nesta conversa; peça ao admin que a confirme ou cancele antes de propor outra.",
      alreadyDecided: (a) => `A ação ${curly(a.preview)} já está no estado “${a.status}”; não há nada pendente para confirmar.`,
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
    turnFailure: {
      lost: "Questa risposta si è persa prima di finire.",
      databaseTimeout: "Il database ha impiegato troppo tempo a rispondere, quindi questa risposta è stata interrotta.",
      couldNotFinish: (agent) => `${agent === "admin" ? "L'assistente" : "Il tutor"} non è riuscito a finire questa risposta.`,
      sendAgain: "Invia di nuovo il messaggio.",
      sendAgainSoon: "Invia di nuovo il messaggio tra un momento.",
      retrying: "Nuovo tentativo automatico; la risposta ricomincerà.",
    },
    action: {
      andMore: (rest) => ` e altri ${rest}`,
      confirmed: (a) => `Confermato. Eseguo ${guillemets(a.preview)} (${a.total} elementi). L'avanzamento compare qui e ti avviso quando ho finito.`,
      rejected: (a) => `Annullato: ${guillemets(a.preview)}. Non è stato cambiato nulla.`,
      stillPending: (a) =>
        `Non l'ho inteso come un sì o un no chiaro, quindi non è stato eseguito nulla e l'azione è ancora in sospeso: ${guillemets(a.preview)}. Per eseguirla, premi Confirm o rispondi solo «sì»; per annullarla, rispondi «no».`,
      supersededPrefix: "Ho annullato la proposta precedente (non è stato cambiato nulla).\n\n",
      pendingFooter: (a, items) =>
        `\n\nNon è ancora cambiato nulla. Proposta: ${guillemets(a.preview)} — ${a.total} ${a.total === 1 ? "elemento" : "elementi"}: ${items}. ` +
        `Rispondi «sì» per eseguire esattamente questo o «no» per annullarlo (scade il ${time(a.expiresAt)}).`,
      notYetShown: (a) =>
        `Il tuo messaggio è arrivato prima che ti mostrassi la proposta, quindi non l'ho eseguita: ${guillemets(a.preview)} (${a.total} elementi). Rispondi «sì» per eseguirla o «no» per annullarla.`,
      stillPendingFooter: (a) =>
        `\n\nNon è stato eseguito nulla: ${guillemets(a.preview)} è ancora in sospeso, in attesa della tua conferma. Per eseguirla, premi Confirm o rispondi solo «sì»; per annullarla, rispondi «no».`,
      expired: (a) => `L'azione ${guillemets(a.preview)} è scaduta senza conferma e non è stata eseguita. Chiedimelo di nuovo e preparo una nuova proposta.`,
      writeBlocked: "In questa conversazione c'è già un'azione in attesa di conferma; chiedi all'admin di confermarla o annullarla prima di proporne un'altra.",
      alreadyDecided: (a) => `L'azione ${guillemets(a.preview)} è già nello stato «${a.status}»; non c'è nulla in sospeso da confermare.`,
    },
  },
};

/** The fixed sentences for `language`, English where the catalog has none of its own. */
export function messagesFor(language: Language): Messages {
  return MESSAGES[catalogLanguage(language)];
}

/** The name of `language` as a speaker of `reader` writes it ("es" for a French reader: "espagnol"). */
export function languageNameFor(language: Language, reader: Language): string {
  return languageName(language, catalogLanguage(reader));
}
