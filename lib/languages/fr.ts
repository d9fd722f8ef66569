/** French. */
import { stemmer } from "@orama/stemmers/french";
import { messagesFor } from "../messages";
import { type LanguagePack, phraseList, wordList } from "./pack";

export const french = {
  code: "fr",
  messages: messagesFor("fr"),
  greetings: phraseList("bonjour, salut, bonsoir, coucou, au revoir, bonne journee, bonne soiree, a bientot"),
  thanks: phraseList("merci, merci beaucoup, mille mercis, merci mille fois"),
  acknowledgements: phraseList("super, parfait, tres bien"),
  shortReplyWords: wordList("oui d'accord daccord svp stp pardon"),
  progressPhrases: phraseList("ma progression, mes progres, mes notes, mes cours, mes competences, mes formations, mes echeances"),
  confirmation: {
    yes: phraseList("oui, ouais, daccord, vas y, allez y, je confirme, confirme, bien sur, parfait, cest bon, allons y"),
    no: phraseList("non, non merci, annule, annuler, annule le, surtout pas, pas maintenant, laisse tomber, pas question"),
    stop: phraseList("arrete, arreter, arrete tout, stoppe, halte, arretez"),
    polite: phraseList("merci, sil te plait, sil vous plait, stp, svp"),
    fillers: phraseList("maintenant, tout de suite"),
    and: ["et"],
    questionOpeners: wordList("quoi quest comment pourquoi quand ou qui quel quelle quels quelles combien puis peux pouvez estce"),
    hedges: phraseList("si tu, si vous, sauf si, a condition que, peut etre, je pense, je crois, je ne sais pas, pas sur, pas sure"),
    changeWords: wordList("ajoute aussi plutot change retire enleve sauf seulement remplace"),
  },
  grounding: {
    stopWords: wordList(
      `le la les un une des du de au aux et ou en dans sur sous pour par avec sans ce cet cette ces mon ma mes ton ta tes son sa ses notre
      nos votre vos leur leurs je tu il elle on nous vous ils elles me te se est sont ai as avons avez ont suis es qui que qu quoi quel
      quelle quels quelles comment quand combien pourquoi si ne pas plus il y
      moi toi lui eux chez pendant avant apres vers entre rien quelque quelques meme alors donc car mais comme trop peu beaucoup encore jamais toujours ici ca cela ceci celui celle ceux celles dont cest quest jai ya`,
    ),
    frameWords: wordList(
      `entreprise entreprises societe organisation dit disent dire explique expliquer signifie savoir sais besoin faut dois doit doivent
      peux peut peuvent puis faire fait utiliser passe maniere facon mieux bon bonne nouveau nouvelle chose choses exactement selon chaque
      tout tous toute toutes autre autres tres aussi deja entre jusqu depuis parce mais ni etre etait avoir droit permis autorise regle regles
      bonjour salut voudrais voudrait veux veut aimerais demander fais prends prend prendre ai as`,
    ),
    everydayWords: wordList(
      `jour jours semaine semaines mois an ans annee annees heure heures minute minutes temps aujourd hui demain matin soir nuit
      apporter amener aller venir mettre envoyer demander remplir aider formulaire formulaires equipe equipes personne personnes gens
      type types partie lieu numero liste information informations question probleme cas premier premiere dernier derniere prochain
      fin rapide vite bientot fois deux trois quatre cinq six sept huit neuf dix cent
      janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre`,
    ),
    wordFamilies: [
      "produit article marchandise",
      "rembourser remboursement remboursé",
      "reçu recu ticket facture justificatif",
      "acheter achat acheté",
      "client cliente acheteur",
      "employé employe salarié salarie collaborateur collègue collegue personnel",
      "responsable manager chef supérieur superieur",
      "défectueux defectueux cassé casse abîmé abime endommagé endommage",
      "échanger echanger échange echange remplacer remplacement",
      "réclamation reclamation plainte",
      "retourner retour rendre",
      "formation formations cours stage apprentissage",
      "congé conge congés conges vacances",
      "délai delai période periode",
    ],
    phraseRewrites: [],
    clauseJoiners: wordList("et ou aussi"),
    questionWords: wordList("que quoi qu quel quelle quels quelles comment combien quand où ou qui pourquoi est puis dois peux faut"),
  },
  workplaceTerms: {
    timeOff: "récupérer recuperer récupérées recuperees récupération recuperation",
    advance: "avance",
    work: "travail travailler",
    leave: "congé congés conge conges vacances",
    sick: "malade maladie",
    medicalNote: "médecin medecin certificat",
    overtime: "supplémentaires supplementaires sup",
    rest: "pause pauses",
    expenses: "frais",
    receipt: "reçu recu ticket facture justificatif",
    refund: "rembourser remboursement remboursé rembourse",
    pay: "payer payé payée payées",
    salary: "salaire",
    hotel: "hôtel hotel",
    night: "nuit nuits nuitée",
    meal: "repas resto restaurant",
    allowance: "indemnité indemnite",
    trip: "déplacement deplacement voyage",
    booking: "réserver reserver réservation",
    abroad: "étranger etranger",
    car: "voiture",
    distance: "kilomètre kilometre",
    password: "mdp password",
    computer: "ordinateur pc portable",
    phone: "téléphone telephone portable",
    loss: "perdu perdus perdue perds perdre volé vole",
    email: "mail courriel email",
    suspicious: "suspect suspicieux bizarre louche",
    attachment: "jointe jointes",
    training: "formation cours stage",
    language: "langue langues anglais",
    probation: "essai",
    newHire: "embauché embauche embauchés embauches recrue recrues",
    manager: "manager responsable chef",
    safety: "sécurité securite protection",
    equipment: "équipement equipement",
    forklift: "chariot chariots",
    warehouse: "entrepôt entrepot",
    speed: "vitesse",
    accident: "accident",
    notify: "prévenir prevenir avertir signaler",
    submit: "soumettre déposer deposer",
    approval: "approuver approuvé valider",
    wedding: "mariage marier marie",
    colleague: "collègue collègues collegue salarié salarie salariés",
    day: "jour jours journalier",
    week: "semaine semaines",
    month: "mois",
    year: "ans année annee annuel",
    hour: "heure heures",
    minute: "minute minutes",
    france: "france français francais",
    germany: "allemagne allemand allemands",
    spain: "espagne espagnol",
    portugal: "portugal portugais",
    italy: "italie italien",
  },
  stem: stemmer,
  judgeStems: true,
  healthTerms: {
    neurodivergence: wordList("tdah autis asperger dyslex dyspra dyscalc neurodiver tourette"),
    mental_health: phraseList("depressi, anxiete, burnout, burn out, bipolar, suicid, sante mentale, crise de panique"),
    disability: phraseList("handicap, fauteuil roulant"),
    medical: wordList("diagnos symptom medicament maladie chroniq epilep diabet cancer"),
  },
  fallbacks: {
    "grounding.phraseRewrites":
      "French names a return or a refund with its own verbs (retourner, rendre, rembourser), which the word families hold; no phrase stands for them as 'bring it back' does in English.",
  },
} satisfies LanguagePack;
