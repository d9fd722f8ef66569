/** English: the product's first language and the last resort of every fallback chain. */
import { stemmer } from "@orama/stemmers/english";
import { messagesFor } from "../messages";
import { type LanguagePack, phraseList, wordList } from "./pack";

export const english = {
  code: "en",
  messages: messagesFor("en"),
  greetings: phraseList("hi, hello, hey, hiya, howdy, greetings, good morning, good afternoon, good evening, good day, bye, goodbye, see you later"),
  thanks: phraseList("thanks, thank you, thank, thanks a lot, thx, cheers, much appreciated, appreciated, appreciate it"),
  acknowledgements: phraseList("great, fine, awesome, nice"),
  shortReplyWords: wordList("yes yeah yep please sorry"),
  progressPhrases: phraseList(
    "my progress, my score, my scores, my grade, my grades, how am i doing, my deadline, my deadlines, my courses, my enrollments, " +
      "reviews due, what should i review, my skills",
  ),
  confirmation: {
    yes: phraseList(
      "yes, yeah, yea, yep, yup, yes sir, sure, sure thing, ok, okay, okey, oki, alright, all right, confirm, confirmed, i confirm, " +
        "approve, approved, i approve, proceed, please proceed, go, go ahead, go on, go for it, do it, run it, lets do it, lets go, " +
        "sounds good, looks good, lgtm, correct, thats right, thats correct, absolutely, definitely, of course, certainly, agreed, affirmative, " +
        "please do, yes please, 👍, ✅, 👌, ✔",
    ),
    no: phraseList(
      "no, nope, nah, no thanks, no thank you, cancel, cancel it, cancel that, cancel this, reject, reject it, mejor no, better not, " +
        "not now, never mind, nevermind, forget it, dont, do not, dont do it, do not do it, dont run it, stop, abort, no way, " +
        "i dont think so, negative, 👎, ❌",
    ),
    stop: phraseList(
      "stop, stop it, stop that, stop this, stop the action, stop the run, stop running, stop everything, halt, abort, abort it, pause, pause it, " +
        "cancel, cancel it, cancel the action, enough, ✋, 🛑",
    ),
    polite: phraseList("please, pls, plz, thanks, thank you, thx, ty, cheers"),
    fillers: phraseList("then, now, right now"),
    and: ["and"],
    questionOpeners: wordList(
      "what whats how why when where who whom whose which does do did is are was were can could would should will shall may might have has am isnt arent wont",
    ),
    hedges: phraseList(
      "if, unless, when, whether, in case, as long as, provided, maybe, perhaps, probably, possibly, not sure, unsure, i think, i guess, i suppose, " +
        "might, kind of, sort of, dunno, dont know",
    ),
    changeWords: wordList(
      "add also instead change remove include exclude assign enroll enrol deactivate archive verify set make only except plus without replace swap drop move extend postpone",
    ),
  },
  grounding: {
    stopWords: wordList(
      `the is are what how do does i my of to in can when where which a an and for with about it on be have has at or if me you your there
      this that we our many much any get`,
    ),
    frameWords: wordList(
      `company companies organisation organization firm say says said tell explain explains mean means know need want use using used
      happen happens find give show please could would should will may might must long often way ways best good new make made does did
      rule rules thing things exactly take takes taking by as from them its was were than out doesn don isn even still though why who whom
      whose let done whether some into over under then all such only own same other each more most very just also been being am doing
      had having shall not no so too here these those they their he she his her us per every anything something allow allowed permitted
      supposed able off given`,
    ),
    everydayWords: wordList(
      `day days week weeks month months year years hour hours minute minutes time times today tomorrow morning night weekend
      bring get got go goes going come put keep send ask fill help leave start stop end finish call follow walk walks run sit stand
      wait lose lost forget forgot look see think try
      form forms team teams people person someone anyone somebody thing part place kind type types number list information detail
      question problem case first last next back up down quick quickly fast soon still again else ago
      one two three four five six seven eight nine ten twelve twenty hundred once twice
      january february march april may june july august september october november december`,
    ),
    wordFamilies: [
      "product item goods article merchandise",
      "refund reimburse reimbursement",
      "receipt invoice",
      "buy bought purchase",
      "customer shopper client buyer",
      "employee staff worker colleague",
      "manager boss supervisor",
      "faulty defective broken damaged",
      "swap exchange replace replacement",
      "complain complaint",
      "reply respond response answer",
      "condition state",
      "period window timeframe",
      "photocopy photocopied copy",
      "escalate escalation",
      // Irregular forms the crude stem cannot join ("lost a receipt" is "lose a receipt").
      "lose loses losing lost",
    ],
    // A verb with "back" is a return, and "money back" a refund, in whatever order the employee puts the object ("bring items back").
    phraseRewrites: [
      [
        /\b(?:bring|brings|bringing|brought|give|gives|giving|gave|take|takes|taking|took|send|sends|sending|sent)\s+((?:[\p{L}\p{N}'-]+\s+){0,3}?)back\b/giu,
        "return $1",
      ],
      [/\bmoney\s+back\b/giu, "refund"],
      // Paid holiday, named as one thing: "leave" alone is a verb as often, so the phrase becomes the concept's noun.
      [/\b(?:annual|paid|holiday|vacation)\s+leave\b/giu, "vacation"],
      // Time away from work, as holiday or as overtime given back ("timeoff" is a word of both concepts below).
      [/\b(?:time|days?)\s+off\b/giu, "timeoff"],
      [/\b(?:off\s+sick|sick\s+leave|on\s+sick)\b/giu, "sick"],
      // One word for one concept: two would weigh a doctor's note twice against the rest of the question.
      [/\b(?:doctor'?s?|sick|medical|fit)\s+notes?\b/giu, "certificate"],
      [/\bnew\s+(?:hires?|starters?|joiners?|recruits?|employees?)\b/giu, "newhire"],
    ],
    clauseJoiners: wordList("and or also"),
    questionWords: wordList("what how which when where who why can could do does did is are should must will would"),
  },
  workplaceTerms: {
    timeOff: "lieu compensate compensated timeoff",
    advance: "advance beforehand before",
    work: "work working",
    leave: "leave vacation vacations timeoff",
    sick: "sick ill illness sickness",
    medicalNote: "doctor medical certificate",
    overtime: "overtime",
    rest: "break breaks",
    expenses: "expense expenses",
    receipt: "receipt receipts",
    refund: "refund refunded reimburse reimbursed reimbursement",
    pay: "pay paid payout",
    salary: "salary wage wages",
    hotel: "hotel hotels",
    night: "night nights",
    meal: "meal meals food dinner dinners lunch lunches breakfast",
    allowance: "allowance",
    trip: "trip trips travel travelling",
    booking: "book booked booking",
    abroad: "abroad",
    car: "car mileage",
    distance: "kilometre kilometres km",
    password: "password passwords",
    computer: "laptop computer",
    phone: "phone telephone mobile",
    loss: "lost lose stolen theft",
    email: "email emails mail",
    suspicious: "suspicious phishing strange",
    attachment: "attachment attachments",
    training: "training course courses",
    language: "language languages english",
    probation: "probation probationary",
    newHire: "newhire newcomer newcomers",
    manager: "manager boss supervisor",
    safety: "safety protective",
    equipment: "equipment gear",
    forklift: "forklift forklifts",
    warehouse: "warehouse",
    speed: "speed",
    accident: "accident accidents incident",
    notify: "notify inform report",
    submit: "submit submitted",
    approval: "approve approved approval",
    wedding: "wedding marriage marry married",
    colleague: "colleague colleagues staff employee employees",
    day: "day days daily",
    week: "week weeks",
    month: "month months",
    year: "year years annual",
    hour: "hour hours",
    minute: "minute minutes",
    france: "france french",
    germany: "germany german",
    spain: "spain spanish",
    portugal: "portugal portuguese",
    italy: "italy italian",
  },
  stem: stemmer,
  judgeStems: false,
  healthTerms: {
    neurodivergence: wordList("adhd autis asperger dyslex dyspra dyscalc neurodiver neurodiv tourette"),
    mental_health: phraseList("depressi, depressed, anxiety, burnout, burn out, bipolar, ptsd, suicid, mental health, panic attack"),
    disability: phraseList("disabilit, handicap, wheelchair"),
    medical: wordList("diagnos symptom medication illness chronic epilep diabet cancer"),
  },
  fallbacks: {},
} satisfies LanguagePack;
