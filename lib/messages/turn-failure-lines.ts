/** What a turn that could not finish tells its reader (workers/turns/stage-failure.ts), in every catalog language. */
import type { CatalogLanguage } from "../messages";

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

export const TURN_FAILURE_LINES: Record<CatalogLanguage, TurnFailureLines> = {
  en: {
    lost: "This answer was lost before it finished.",
    databaseTimeout: "The database took too long to answer, so this answer was stopped.",
    couldNotFinish: (agent) => `${agent === "admin" ? "The assistant" : "The tutor"} could not finish this answer.`,
    sendAgain: "Send the message again.",
    sendAgainSoon: "Send the message again in a moment.",
    retrying: "Retrying automatically; the answer will restart.",
  },
  es: {
    lost: "Esta respuesta se perdió antes de terminar.",
    databaseTimeout: "La base de datos tardó demasiado en responder, así que esta respuesta se detuvo.",
    couldNotFinish: (agent) => `${agent === "admin" ? "El asistente" : "El tutor"} no pudo terminar esta respuesta.`,
    sendAgain: "Envía el mensaje otra vez.",
    sendAgainSoon: "Envía el mensaje otra vez dentro de un momento.",
    retrying: "Reintentando automáticamente; la respuesta empezará de nuevo.",
  },
  fr: {
    lost: "Cette réponse a été perdue avant d'être terminée.",
    databaseTimeout: "La base de données a mis trop de temps à répondre, cette réponse a donc été arrêtée.",
    couldNotFinish: (agent) => `${agent === "admin" ? "L'assistant" : "Le tuteur"} n'a pas pu terminer cette réponse.`,
    sendAgain: "Envoie le message à nouveau.",
    sendAgainSoon: "Envoie le message à nouveau dans un instant.",
    retrying: "Nouvel essai automatique ; la réponse va recommencer.",
  },
  de: {
    lost: "Diese Antwort ging verloren, bevor sie fertig war.",
    databaseTimeout: "Die Datenbank hat zu lange gebraucht, daher wurde diese Antwort abgebrochen.",
    couldNotFinish: (agent) => `${agent === "admin" ? "Der Assistent" : "Der Tutor"} konnte diese Antwort nicht beenden.`,
    sendAgain: "Sende die Nachricht noch einmal.",
    sendAgainSoon: "Sende die Nachricht gleich noch einmal.",
    retrying: "Wird automatisch wiederholt; die Antwort beginnt neu.",
  },
  pt: {
    lost: "Esta resposta perdeu-se antes de terminar.",
    databaseTimeout: "A base de dados demorou demasiado a responder, por isso esta resposta foi interrompida.",
    couldNotFinish: (agent) => `${agent === "admin" ? "O assistente" : "O tutor"} não conseguiu terminar esta resposta.`,
    sendAgain: "Envie a mensagem novamente.",
    sendAgainSoon: "Envie a mensagem novamente daqui a pouco.",
    retrying: "A repetir automaticamente; a resposta vai recomeçar.",
  },
  it: {
    lost: "Questa risposta si è persa prima di finire.",
    databaseTimeout: "Il database ha impiegato troppo tempo a rispondere, quindi questa risposta è stata interrotta.",
    couldNotFinish: (agent) => `${agent === "admin" ? "L'assistente" : "Il tutor"} non è riuscito a finire questa risposta.`,
    sendAgain: "Invia di nuovo il messaggio.",
    sendAgainSoon: "Invia di nuovo il messaggio tra un momento.",
    retrying: "Nuovo tentativo automatico; la risposta ricomincerà.",
  },
};
