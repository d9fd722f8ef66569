/** German. */
import { stemmer } from "@orama/stemmers/german";
import { messagesFor } from "../messages";
import { type LanguagePack, phraseList, wordList } from "./pack";

export const german = {
  code: "de",
  messages: messagesFor("de"),
  greetings: phraseList("hallo, guten morgen, guten tag, guten abend, servus, moin, tschuss, auf wiedersehen, bis bald"),
  thanks: phraseList("danke, danke schon, danke sehr, dankeschon, vielen dank"),
  acknowledgements: phraseList("genau, prima, alles klar, gut"),
  shortReplyWords: wordList("ja bitte"),
  progressPhrases: phraseList("mein fortschritt, meinen fortschritt, meine noten, meine kurse, meine fristen, meine schulungen"),
  confirmation: {
    yes: phraseList("ja, jawohl, klar, genau, mach es, mach das, bestatigt, ich bestatige, einverstanden, in ordnung, los, leg los"),
    no: phraseList("nein, nein danke, abbrechen, brich ab, lieber nicht, jetzt nicht, auf keinen fall, vergiss es"),
    stop: phraseList("stopp, anhalten, halt an, hor auf, hor auf damit"),
    polite: phraseList("bitte, danke, bitte schon"),
    fillers: phraseList("jetzt, dann, sofort"),
    and: ["und"],
    questionOpeners: wordList("was wie warum wieso weshalb wann wo wer wen wem welche welcher welches kann konnen ist sind soll sollte darf gibt"),
    // "ß" does not fold: both spellings are listed.
    hedges: phraseList("wenn, falls, vielleicht, eventuell, ich glaube, ich denke, weiß nicht, weiss nicht, nicht sicher, ausser wenn"),
    changeWords: wordList("fuge auch stattdessen andere entferne nur ausser ohne ersetze"),
  },
  grounding: {
    stopWords: wordList(
      `der die das den dem des ein eine einen einem einer eines und oder in im an am auf aus bei mit nach von vor zu zum zur fur uber unter
      sein seine seinen seiner ich du er sie es wir ihr mein meine meinen meiner mich mir dich dir sich ist sind bin bist war habe hast hat haben kann konnen was
      wie wo wann welche welcher welches wer warum wieviel viele gibt nicht kein keine als wenn ob dass um war wird werden wurde
      uns unser unsere unserem unseren unserer euch ihm ihn ihnen denn doch mal ja aber beim vom ins bis seit durch gegen ohne also dann da hier dort so viel vielen furs man pro`,
    ),
    frameWords: wordList(
      `firma unternehmen organisation betrieb sagt sagen erklaren erklart bedeutet wissen weiss brauche brauchen muss mussen soll sollen
      darf durfen mochte will wollen machen mache tun gilt gelten regel regeln ding dinge genau laut jeder jede jedes alle alles andere
      anderen sehr schon noch nur man neue neuen gut beste erlaubt auch
      eigentlich lange lang lassen reicht reichen bekomme bekommen bekommt kriege kriegen`,
    ),
    everydayWords: wordList(
      `tag tage tagen woche wochen monat monate monaten jahr jahre jahren stunde stunden minute minuten zeit heute morgen abend nacht
      wochenende eintragen einzutragen eingetragen bringen mitbringen gehen kommen geben schicken senden fragen ausfullen helfen formular formulare team teams person
      personen leute jemand art typ teil ort nummer liste information informationen frage problem fall erste erster letzte letzter
      nachste schnell bald mal eins zwei drei vier funf sechs sieben acht neun zehn hundert
      januar februar marz april mai juni juli august september oktober november dezember`,
    ),
    wordFamilies: [
      "produkt artikel erzeugnis",
      "erstattung erstatten ruckerstattung rückerstattung",
      "quittung beleg kassenbon rechnung",
      "kaufen gekauft kauf einkauf",
      "kunde kunden kundin kaufer käufer",
      "mitarbeiter mitarbeiterin angestellte beschaftigte beschäftigte kollege kollegin personal",
      "vorgesetzte vorgesetzter chef chefin fuhrungskraft führungskraft",
      "defekt beschadigt beschädigt kaputt fehlerhaft",
      "umtausch umtauschen austausch austauschen ersetzen ersatz",
      "reklamation beschwerde",
      "ruckgabe rückgabe zuruckgeben zurückgeben zuruckzugeben zurückzugeben zurucksenden zurücksenden zuruckbringen zurückbringen",
      "schulung schulungen kurs kurse weiterbildung fortbildung training",
      "urlaub urlaubstage ferien",
      "kernzeit kernzeiten kernarbeitszeit",
      "frist zeitraum",
    ],
    // A separable verb with "zurück" is a return, whatever stands between ("bringe den Artikel zurück").
    phraseRewrites: [
      [
        /\b(?:bringe|bringen|bringt|gebe|geben|gibt|schicke|schicken|schickt|sende|senden|sendet)\s+((?:[\p{L}\p{N}'-]+\s+){0,3}?)zur(?:ü|u)ck\b/giu,
        "rückgabe $1",
      ],
    ],
    clauseJoiners: wordList("und oder auch"),
    questionWords: wordList("was wie welche welcher welches wann wo wer warum wieviel kann darf muss soll gibt"),
  },
  workplaceTerms: {
    timeOff: "freizeitausgleich ausgleich ausgeglichen",
    advance: "vorher vorab",
    work: "arbeit arbeiten arbeite",
    leave: "urlaub urlaubstage ferien",
    sick: "krank krankheit krankmeldung",
    medicalNote: "arzt attest krankschreibung",
    overtime: "überstunden uberstunden mehrarbeit",
    rest: "pause pausen",
    expenses: "kosten spesen auslagen",
    receipt: "quittung beleg kassenbon rechnung",
    refund: "erstattung erstatten erstattet",
    pay: "zahlen zahlt bezahlt ausgezahlt auszahlung",
    salary: "gehalt lohn",
    hotel: "hotel übernachtung ubernachtung",
    night: "nacht nächte",
    meal: "mahlzeit mahlzeiten verpflegung",
    allowance: "pauschale tagegeld",
    trip: "reise reisen dienstreise",
    booking: "buchen buchung",
    abroad: "ausland",
    car: "auto pkw",
    distance: "kilometer",
    password: "passwort kennwort",
    computer: "laptop notebook rechner computer",
    phone: "handy telefon",
    loss: "verloren gestohlen diebstahl",
    email: "mail email",
    suspicious: "verdächtig verdachtig seltsam komisch",
    attachment: "anhang anhänge",
    training: "schulung kurs kurse training",
    language: "sprache sprachen sprachkurs sprachkurse englisch",
    probation: "probezeit",
    newHire: "neueinsteiger neuling neulinge berufseinsteiger",
    manager: "führungskraft fuhrungskraft vorgesetzte chef",
    safety: "sicherheit schutz",
    equipment: "ausrüstung ausrustung",
    forklift: "gabelstapler stapler",
    warehouse: "lager",
    speed: "geschwindigkeit",
    accident: "unfall",
    notify: "melden benachrichtigen informieren",
    submit: "einreichen abgeben",
    approval: "genehmigen genehmigt genehmigung absegnen abgesegnet",
    wedding: "hochzeit heirat heiraten",
    colleague: "kollege kollegen mitarbeiter beschäftigte",
    day: "tag tage täglich taglich",
    week: "woche wochen",
    month: "monat monate",
    year: "jahr jahre jährlich",
    hour: "stunde stunden",
    minute: "minute minuten",
    france: "frankreich französisch",
    germany: "deutschland deutsch deutsche",
    spain: "spanien spanisch",
    portugal: "portugal portugiesisch",
    italy: "italien italienisch",
  },
  stem: stemmer,
  judgeStems: true,
  healthTerms: {
    neurodivergence: wordList("adhs autis asperger legasthen dyslex neurodiv tourette"),
    mental_health: phraseList("depressi, angststorung, burnout, burn out, bipolar, suicid, psychische gesundheit"),
    disability: phraseList("behinderung, behindert, rollstuhl"),
    medical: wordList("diagnos symptom medikament krankheit chronisch epilep diabet krebs"),
  },
  fallbacks: {},
} satisfies LanguagePack;
