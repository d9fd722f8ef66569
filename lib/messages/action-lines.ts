/** The admin assistant's fixed sentences about a pending action, in every catalog language. */
import type { CatalogLanguage } from "../messages";

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

export const ACTION_LINES: Record<CatalogLanguage, ActionLines> = {
  en: {
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
  es: {
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
  fr: {
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
  de: {
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
  pt: {
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
  it: {
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
};
