/**
 * The grounding judge in every language the tutor answers in (units, no stack), as
 * grounding-units.test.ts does for English and Spanish: a question is grounded by the passage
 * that answers it, not by a passage on another subject, and an off-topic question, or one that
 * shares only the organisation's frequent words with its material, grounds nowhere. The terms'
 * rarities come from the small corpus each language's cases carry, as relevance.ts computes them
 * from an organisation's chunks.
 */
import { expect } from "chai";
import type { ChunkHit } from "../../../../db/queries/knowledge-search";
import { contentWords, searchTerms } from "../../../../workers/tutor/language";
import { grounds } from "../../../../workers/tutor/retrieval/hybrid-search";
import { contentTermsOf, occursAs, occursIn, type QuestionTerm, textWordsOf } from "../../../../workers/tutor/retrieval/question-terms";
import { rarity, relevanceOf, type Relevance } from "../../../../workers/tutor/retrieval/relevance";

const FLOORS = { coverage: 0.55, similarity: 0.5 };

/** Whether a word of a text is an occurrence of the term, as the judge compares them. */
const meets = (term: QuestionTerm, word: string) => textWordsOf(word, [term]).some((textWord) => occursIn(term, textWord));

const hit = (content: string): ChunkHit => ({
  id: "c1",
  document_id: "d1",
  document_title: "Manual",
  content,
  position: 0,
  metadata: {},
  similarity: 0,
  text_rank: 0,
});

/** The judge for a question against a corpus: each term weighed by how many passages hold it. */
function judge(question: string, language: string, corpus: string[]): Relevance {
  const terms = contentTermsOf(question, language);
  const held = terms.map((term) => corpus.filter((passage) => relevanceOf([term], [1]).coverage(passage) > 0).length);
  return relevanceOf(
    terms,
    held.map((df) => rarity(df, corpus.length)),
    held.map((df) => df === 0),
  );
}

interface LanguageCase {
  /** Passages of the organisation's material: returns, forklift training, the company's policies on dress, leave. */
  corpus: [returns: string, forklift: string, dress: string, leave: string];
  /** Questions each answered by the passage at that index of the corpus. */
  covered: Array<[question: string, passage: number]>;
  /** Questions none of the passages answers: off-topic, or sharing only a frequent word ("policy", "company"). */
  unanswered: string[];
}

const CASES: Record<string, LanguageCase> = {
  fr: {
    corpus: [
      "Politique de retour : les clients peuvent rapporter un article défectueux dans les 30 jours avec leur ticket de caisse ; il est alors remboursé.",
      "Politique de sécurité : seul le personnel ayant suivi la formation de cariste peut conduire un chariot élévateur dans l'entrepôt.",
      "Politique vestimentaire : les chaussures de sécurité sont obligatoires en magasin.",
      "Politique des congés : chaque salarié a droit à vingt-cinq jours de congés payés par an, à demander à son responsable.",
    ],
    covered: [
      ["Combien de jours les clients ont-ils pour retourner un produit défectueux ?", 0],
      ["Quelles formations faut-il pour conduire les chariots élévateurs ?", 1],
      ["Combien de congés payés ai-je par an ?", 3],
    ],
    unanswered: [
      "Qui a gagné la coupe du monde de football en 1998 ?",
      "Quelle est la politique de l'entreprise sur le télétravail ?",
      "Quelle est la recette de la ratatouille ?",
    ],
  },
  de: {
    corpus: [
      "Richtlinie zur Rückgabe: Kunden können defekte Artikel innerhalb von 30 Tagen mit Kassenbon zurückgeben; der Betrag wird erstattet.",
      "Richtlinie zur Sicherheit: Nur Mitarbeiter mit abgeschlossener Schulung für Staplerfahrer dürfen im Lager einen Gabelstapler fahren.",
      "Richtlinie zur Kleidung: Sicherheitsschuhe sind im Markt Pflicht.",
      "Richtlinie zum Urlaub: Jeder Mitarbeiter hat dreißig Urlaubstage im Jahr; den Urlaub genehmigt die Führungskraft.",
    ],
    covered: [
      ["Wie viele Tage haben Kunden, um einen defekten Artikel zurückzugeben?", 0],
      ["Welche Schulungen brauche ich, um Gabelstapler zu fahren?", 1],
      ["Wie viele Urlaubstage habe ich?", 3],
    ],
    unanswered: [
      "Wer hat die Fußballweltmeisterschaft 1998 gewonnen?",
      "Was ist die Richtlinie des Unternehmens zum Homeoffice?",
      "Wie backe ich einen Apfelstrudel?",
    ],
  },
  pt: {
    corpus: [
      "Política de devolução: os clientes podem devolver um artigo com defeito em 30 dias com o recibo; o valor é reembolsado.",
      "Política de segurança: só funcionários com o treinamento de operador podem conduzir a empilhadeira no armazém.",
      "Política de vestuário: o calçado de segurança é obrigatório na loja.",
      "Política de férias: cada colaborador tem direito a vinte e dois dias úteis de férias por ano, pedidos ao gestor.",
    ],
    covered: [
      ["Quantos dias os clientes têm para devolver produtos com defeito?", 0],
      ["Que treinamentos preciso para conduzir empilhadeiras?", 1],
      ["Quantos dias de férias tenho por ano?", 3],
    ],
    unanswered: ["Quem ganhou a Copa do Mundo de futebol de 1998?", "Qual é a política da empresa sobre teletrabalho?", "Qual é a receita do bacalhau à brás?"],
  },
  it: {
    corpus: [
      "Politica dei resi: i clienti possono restituire un articolo difettoso entro 30 giorni con lo scontrino; l'importo viene rimborsato.",
      "Politica di sicurezza: solo i dipendenti che hanno seguito il corso per carrellisti possono guidare il carrello elevatore in magazzino.",
      "Politica di abbigliamento: le scarpe antinfortunistiche sono obbligatorie in negozio.",
      "Politica delle ferie: ogni dipendente ha diritto a ventisei giorni di ferie all'anno, da chiedere al proprio responsabile.",
    ],
    covered: [
      ["Entro quanti giorni i clienti possono restituire prodotti difettosi?", 0],
      ["Quali corsi servono per guidare i carrelli elevatori?", 1],
      ["Quanti giorni di ferie ho all'anno?", 3],
    ],
    unanswered: ["Chi ha vinto i mondiali di calcio nel 1998?", "Qual è la politica dell'azienda sul telelavoro?", "Qual è la ricetta della carbonara?"],
  },
};

describe("grounding by relevance in French, German, Portuguese and Italian (units)", () => {
  for (const [language, { corpus, covered, unanswered }] of Object.entries(CASES)) {
    describe(language, () => {
      it("grounds a question in the passage that answers it, and in no other", () => {
        for (const [question, answering] of covered) {
          const relevance = judge(question, language, corpus);
          corpus.forEach((passage, i) => {
            expect(grounds(hit(passage), relevance, FLOORS), `${question} ← passage ${i}`).to.equal(i === answering);
          });
        }
      });

      it("grounds an off-topic question, or one that shares only the material's frequent words, nowhere", () => {
        for (const question of unanswered) {
          const relevance = judge(question, language, corpus);
          for (const passage of corpus) expect(grounds(hit(passage), relevance, FLOORS), `${question} ← ${passage}`).to.equal(false);
        }
      });
    });
  }

  it("meets a word by its Snowball stem where the crude stem alone would not (Italian 'corsi' in 'corso')", () => {
    const [courses] = contentTermsOf("Quali corsi?", "it");
    expect(courses!.stems).to.include("cors");
    expect(occursAs(courses!.stem, "corso"), "the crude stem alone").to.equal(false);
    expect(meets(courses!, "corso")).to.equal(true);
    expect(meets(courses!, "cortile"), "a different word").to.equal(false);
    expect(courses!.query).to.include("corsi");
  });

  it("meets a word's family in its own language first (Portuguese 'devolver' in 'devolução', German 'zurückzugeben' in 'Rückgabe')", () => {
    const [returning] = contentTermsOf("Posso devolver?", "pt");
    expect(meets(returning!, "devolucao")).to.equal(true);
    const returns = contentTermsOf("Wie gebe ich etwas zurück?", "de").find((term) => term.stem.startsWith("ruckgab"));
    expect(returns, "a separable verb with 'zurück' is a return").to.not.equal(undefined);
    expect(meets(returns!, "zuruckgeben")).to.equal(true);
  });

  it("leaves the language's function words out of the keyword search", () => {
    expect(contentWords("Quelles sont les règles des congés ?", "fr")).to.deep.equal(["regles", "conges"]);
    expect(searchTerms("Wie viele Urlaubstage habe ich im Jahr?", "de")).to.deep.equal(["urlaubstage", "jahr"]);
    expect(contentWords("Quali sono le regole per le ferie?", "it")).to.deep.equal(["regole", "ferie"]);
    expect(contentWords("Quais são as regras das férias?", "pt")).to.deep.equal(["regras", "ferias"]);
    // Without a language, English's and Spanish's only, as before.
    expect(contentWords("Quelles sont les règles ?")).to.include("les");
  });

  it("splits two questions in one at the language's joiner and question word", () => {
    const clauses = (question: string, language: string) => new Set(contentTermsOf(question, language).map((term) => term.clause)).size;
    expect(clauses("Combien de jours de congés ai-je et comment faire la demande au responsable ?", "fr")).to.equal(2);
    expect(clauses("Welche Schulung brauche ich und wann findet die Prüfung statt?", "de")).to.equal(2);
    expect(clauses("Quanti giorni di ferie ho e chi approva la richiesta?", "it")).to.equal(2);
  });

  it("reads English and Spanish questions exactly as before: no Snowball stems, and a language without a pack as English", () => {
    for (const [question, language] of [
      ["What does the company say about remote work?", "en"],
      ["¿Qué dice el manual sobre las vacaciones?", "es"],
    ]) {
      const terms = contentTermsOf(question!, language);
      expect(terms.every((term) => term.stems.length === 0)).to.equal(true);
      expect(terms.map(({ stem, forms, query, everyday, clause }) => ({ stem, forms, query, everyday, clause }))).to.deep.equal(
        contentTermsOf(question!).map(({ stem, forms, query, everyday, clause }) => ({ stem, forms, query, everyday, clause })),
      );
    }
    expect(contentTermsOf("What about remote work?", "nl")).to.deep.equal(contentTermsOf("What about remote work?", "en"));
  });
});
