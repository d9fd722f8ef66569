/**
 * How an admin action's run ended, written into the proposer's conversation when it ends (beside
 * the card's `action_done`), so the next turn and the session's summary know what really happened.
 * Facts only, from the action's row: what it was, the counts, the first failed items and why.
 */
import type { CatalogLanguage } from "../messages";

export interface ActionOutcomeFacts {
  preview: string;
  status: "completed" | "partial" | "failed" | "stopped";
  done: number;
  failed: number;
  total: number;
  notRun: number;
  /** The first failed items, "label: reason". */
  failures: string[];
}

const curly = (text: string) => `“${text}”`;
const guillemets = (text: string) => `«${text}»`;
const low = (text: string) => `„${text}“`;
const failuresOf = (o: ActionOutcomeFacts, intro: string) => (o.failures.length > 0 ? ` ${intro} ${o.failures.join("; ")}.` : "");

export const ACTION_OUTCOME_LINES: Record<CatalogLanguage, (o: ActionOutcomeFacts) => string> = {
  en: (o) =>
    ({
      completed: `The action ${curly(o.preview)} has finished: ${o.total === 1 ? "the change was" : `all ${o.total} items were`} applied.`,
      partial: `The action ${curly(o.preview)} has finished in part: ${o.done} of ${o.total} applied, ${o.failed} failed.${failuresOf(o, "Failed:")} The failed items can be resumed.`,
      failed: `The action ${curly(o.preview)} failed: none of its ${o.total} items was applied.${failuresOf(o, "Why:")} It can be resumed.`,
      stopped: `The action ${curly(o.preview)} was stopped: ${o.done} of ${o.total} applied before the stop, ${o.notRun} not run.`,
    })[o.status],
  es: (o) =>
    ({
      completed: `La acción ${guillemets(o.preview)} ha terminado: ${o.total === 1 ? "se aplicó el cambio" : `se aplicaron los ${o.total} elementos`}.`,
      partial: `La acción ${guillemets(o.preview)} ha terminado en parte: ${o.done} de ${o.total} aplicados, ${o.failed} fallidos.${failuresOf(o, "Fallidos:")} Los elementos fallidos se pueden reanudar.`,
      failed: `La acción ${guillemets(o.preview)} ha fallado: no se aplicó ninguno de sus ${o.total} elementos.${failuresOf(o, "Motivo:")} Se puede reanudar.`,
      stopped: `La acción ${guillemets(o.preview)} se detuvo: ${o.done} de ${o.total} aplicados antes de detenerla, ${o.notRun} sin ejecutar.`,
    })[o.status],
  fr: (o) =>
    ({
      completed: `L'action ${guillemets(o.preview)} est terminée : ${o.total === 1 ? "la modification a été appliquée" : `les ${o.total} éléments ont été appliqués`}.`,
      partial: `L'action ${guillemets(o.preview)} est terminée en partie : ${o.done} sur ${o.total} appliqués, ${o.failed} en échec.${failuresOf(o, "En échec :")} Les éléments en échec peuvent être relancés.`,
      failed: `L'action ${guillemets(o.preview)} a échoué : aucun de ses ${o.total} éléments n'a été appliqué.${failuresOf(o, "Raison :")} Elle peut être relancée.`,
      stopped: `L'action ${guillemets(o.preview)} a été arrêtée : ${o.done} sur ${o.total} appliqués avant l'arrêt, ${o.notRun} non exécutés.`,
    })[o.status],
  de: (o) =>
    ({
      completed: `Die Aktion ${low(o.preview)} ist abgeschlossen: ${o.total === 1 ? "die Änderung wurde" : `alle ${o.total} Einträge wurden`} angewendet.`,
      partial: `Die Aktion ${low(o.preview)} ist teilweise abgeschlossen: ${o.done} von ${o.total} angewendet, ${o.failed} fehlgeschlagen.${failuresOf(o, "Fehlgeschlagen:")} Die fehlgeschlagenen Einträge können fortgesetzt werden.`,
      failed: `Die Aktion ${low(o.preview)} ist fehlgeschlagen: keiner ihrer ${o.total} Einträge wurde angewendet.${failuresOf(o, "Grund:")} Sie kann fortgesetzt werden.`,
      stopped: `Die Aktion ${low(o.preview)} wurde gestoppt: ${o.done} von ${o.total} vor dem Stopp angewendet, ${o.notRun} nicht ausgeführt.`,
    })[o.status],
  pt: (o) =>
    ({
      completed: `A ação ${curly(o.preview)} terminou: ${o.total === 1 ? "a alteração foi aplicada" : `os ${o.total} itens foram aplicados`}.`,
      partial: `A ação ${curly(o.preview)} terminou em parte: ${o.done} de ${o.total} aplicados, ${o.failed} com falha.${failuresOf(o, "Com falha:")} Os itens com falha podem ser retomados.`,
      failed: `A ação ${curly(o.preview)} falhou: nenhum dos seus ${o.total} itens foi aplicado.${failuresOf(o, "Motivo:")} Pode ser retomada.`,
      stopped: `A ação ${curly(o.preview)} foi interrompida: ${o.done} de ${o.total} aplicados antes da interrupção, ${o.notRun} não executados.`,
    })[o.status],
  it: (o) =>
    ({
      completed: `L'azione ${guillemets(o.preview)} è terminata: ${o.total === 1 ? "la modifica è stata applicata" : `tutti i ${o.total} elementi sono stati applicati`}.`,
      partial: `L'azione ${guillemets(o.preview)} è terminata in parte: ${o.done} su ${o.total} applicati, ${o.failed} non riusciti.${failuresOf(o, "Non riusciti:")} Gli elementi non riusciti possono essere ripresi.`,
      failed: `L'azione ${guillemets(o.preview)} non è riuscita: nessuno dei suoi ${o.total} elementi è stato applicato.${failuresOf(o, "Motivo:")} Può essere ripresa.`,
      stopped: `L'azione ${guillemets(o.preview)} è stata fermata: ${o.done} su ${o.total} applicati prima dello stop, ${o.notRun} non eseguiti.`,
    })[o.status],
};
