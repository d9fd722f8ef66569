/** Italian: the worked example of adding a language (docs/architecture.md, "Where a language goes"). */
import { stemmer } from "@orama/stemmers/italian";
import { messagesFor } from "../messages";
import { type LanguagePack, phraseList, wordList } from "./pack";

export const italian = {
  code: "it",
  messages: messagesFor("it"),
  greetings: phraseList("ciao, salve, buongiorno, buon giorno, buonasera, buona sera, buonanotte, arrivederci, a presto, ci vediamo"),
  thanks: phraseList("grazie, grazie mille, mille grazie, grazie tante, ti ringrazio"),
  acknowledgements: phraseList("perfetto, ottimo, benissimo, va bene"),
  // Not "sì": folded it is Spanish's "si", and a short reply keeps the language that already reads it.
  shortReplyWords: wordList("prego scusa per favore"),
  progressPhrases: phraseList("mio progresso, miei progressi, miei voti, miei corsi, mie scadenze, mie competenze, come sto andando"),
  confirmation: {
    yes: phraseList("si, certo, va bene, daccordo, vai, vai pure, procedi, conferma, confermo, confermato, fallo, esatto, perfetto, certamente, senzaltro"),
    no: phraseList("no grazie, annulla, annullalo, lascia stare, lascia perdere, meglio di no, non ora, per niente, assolutamente no, non farlo"),
    stop: phraseList("ferma, fermati, fermalo, ferma tutto, interrompi, basta"),
    polite: phraseList("per favore, grazie, grazie mille, prego"),
    fillers: phraseList("adesso, ora, subito, allora"),
    and: ["e"],
    questionOpeners: wordList("cosa che perche quando dove chi quale quali quanto quanti quante posso puoi"),
    hedges: phraseList("se puoi, se possibile, forse, magari, credo, penso, non so, non sono sicuro, non sono sicura, a meno che"),
    changeWords: wordList("aggiungi anche invece cambia togli rimuovi escludi includi iscrivi assegna solo tranne senza sostituisci"),
  },
  grounding: {
    stopWords: wordList(
      `il lo la i gli le un uno una di del dello della dei degli delle al allo alla ai agli alle da dal dalla dai in nel nello nella nei
      negli nelle con su sul sulla per tra fra entro e o ma se che chi cosa come quando dove quale quali quanto quanti quante quanta perche mio mia
      miei mie tuo tua suo sua nostro nostra io tu lui lei noi voi loro mi ti si ci vi ne non sono ha hanno ho posso puo questo questa
      questi queste quello quella
      dopo durante senza verso presso appena mentre ancora gia anche solo sempre mai molto poco tanto mio mia miei mie tuo tua suo sua nostro nostra ci vi ne lo gli il uno del della dei delle degli al alla ai alle nel nella nei nelle sul sulla dal dalla tra fra`,
    ),
    frameWords: wordList(
      `azienda aziende societa organizzazione dice dicono dire spiega spiegare significa sapere so bisogno serve devo deve devono puoi
      possono voglio vogliamo usare usa succede modo maniera meglio buono buona nuovo nuova fare fa faccio cose esattamente secondo ogni
      tutto tutti tutta tutte altro altra altri altre molto anche gia fino permesso consentito regola regole
      devo deve devono posso puo possono fare faccio fa voglio vorrei sapere`,
    ),
    everydayWords: wordList(
      `giorno giorni settimana settimane mese mesi anno anni ora ore minuto minuti tempo oggi domani mattina sera notte portare andare
      vado venire mettere chiedere dare inviare mandare compilare aiutare modulo moduli squadra team persona persone gente qualcuno tipo
      tipi parte posto luogo numero lista elenco informazione informazioni domanda problema caso primo prima ultimo ultima prossimo
      arrivare arriva arrivato arrivata arrivati arrivate veloce presto volta volte due tre quattro cinque sei sette otto nove dieci cento
      gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre`,
    ),
    wordFamilies: [
      "neoassunto neoassunti assunto assunti",
      "prodotto articolo merce",
      "rimborso rimborsare rimborsi",
      "scontrino ricevuta fattura",
      "comprare acquisto acquistare comprato",
      "cliente clienti acquirente",
      "dipendente dipendenti collaboratore collega colleghi personale lavoratore",
      "responsabile capo supervisore manager",
      "difettoso guasto rotto danneggiato",
      "cambio cambiare sostituire sostituzione",
      "reclamo reclami lamentela",
      "restituire restituzione reso resi",
      "corso corsi formazione addestramento",
      "ferie vacanza vacanze",
      "scadenza termine periodo",
    ],
    phraseRewrites: [],
    clauseJoiners: wordList("e o anche"),
    questionWords: wordList("che cosa come quanto quanti quante quale quali quando dove chi perché perche posso devo puoi"),
  },
  workplaceTerms: {
    timeOff: "recuperare recupero compensare compensate",
    advance: "anticipo preavviso",
    work: "lavoro lavorare",
    leave: "ferie",
    sick: "malato malata malattia ammalarsi ammalato",
    medicalNote: "medico certificato",
    overtime: "straordinari straordinario",
    rest: "pausa pause",
    expenses: "spese",
    receipt: "scontrino ricevuta fattura",
    refund: "rimborso rimborsare rimborsati rimborsano",
    pay: "pagare pagato pagati",
    salary: "stipendio retribuzione",
    hotel: "hotel albergo alloggio",
    night: "notte notti",
    meal: "pasto pasti",
    allowance: "indennità indennita diaria",
    trip: "viaggio viaggi trasferta",
    booking: "prenotare prenotazione",
    abroad: "estero",
    car: "auto macchina",
    distance: "chilometro chilometri",
    password: "password",
    computer: "portatile computer pc",
    phone: "cellulare telefono",
    loss: "perso smarrito rubato furto",
    email: "mail email",
    suspicious: "sospetto sospetta strano strana",
    attachment: "allegato allegati",
    training: "corso corsi formazione",
    language: "lingua lingue inglese",
    probation: "prova",
    newHire: "neoassunto neoassunti assunto assunti",
    manager: "responsabile capo",
    safety: "sicurezza protezione",
    equipment: "attrezzatura dispositivi",
    forklift: "carrello muletto",
    warehouse: "magazzino",
    speed: "velocità velocita",
    accident: "incidente infortunio",
    notify: "avvisare comunicare segnalare",
    submit: "presentare consegnare",
    approval: "approvare approvato autorizzare",
    wedding: "matrimonio sposarsi",
    colleague: "collega colleghi dipendente dipendenti",
    day: "giorno giorni giornaliero",
    week: "settimana settimane",
    month: "mese mesi",
    year: "anno anni annuale",
    hour: "ore",
    minute: "minuto minuti",
    france: "francia francese francesi",
    germany: "germania tedesco tedeschi",
    spain: "spagna spagnolo",
    portugal: "portogallo portoghese",
    italy: "italia italiano italiani",
  },
  stem: stemmer,
  judgeStems: true,
  healthTerms: {
    neurodivergence: wordList("adhd autis asperger disless discalc disprass neurodiver tourette"),
    mental_health: phraseList(
      "depressi, disturbo d ansia, disturbi d ansia, burnout, burn out, bipolar, suicid, salute mentale, attacco di panico, attacchi di panico",
    ),
    disability: phraseList("disabilit, invalidit, sedia a rotelle"),
    medical: wordList("diagnos sintom farmaco malatti cronic epiless diabet cancro tumor"),
  },
  fallbacks: {
    "grounding.phraseRewrites":
      "Italian names a return or a refund with its own words (restituire, reso, rimborso), which the word families hold; no phrase stands for them as 'bring it back' does in English.",
  },
} satisfies LanguagePack;
