/** Intent parsing and the heuristics that skip the model (workers/tutor/intent.ts). */
import { expect } from "chai";
import { heuristicIntent, jsonIntent, parseIntent } from "../../../../workers/tutor/intent";

describe("parseIntent", () => {
  it("accepts each of the five labels, whatever the case, whitespace or trailing punctuation", () => {
    expect(parseIntent("in_course")).to.equal("in_course");
    expect(parseIntent("  Cross_Course.\n")).to.equal("cross_course");
    expect(parseIntent("PROGRESS")).to.equal("progress");
    expect(parseIntent("chitchat!")).to.equal("chitchat");
    expect(parseIntent("`off_topic`")).to.equal("off_topic");
    expect(parseIntent("**in_course**")).to.equal("in_course");
  });

  it("finds the label when the model wraps it in words or writes it with a hyphen or space", () => {
    expect(parseIntent("Label: in_course")).to.equal("in_course");
    expect(parseIntent("The intent is progress.")).to.equal("progress");
    expect(parseIntent("off-topic")).to.equal("off_topic");
    expect(parseIntent("In course")).to.equal("in_course");
  });

  it("maps anything that is not one of the five labels to cross_course", () => {
    expect(parseIntent("")).to.equal("cross_course");
    expect(parseIntent("banana")).to.equal("cross_course");
    expect(parseIntent("course")).to.equal("cross_course");
    expect(parseIntent("I cannot tell")).to.equal("cross_course");
  });
});

describe("heuristicIntent", () => {
  it("settles greetings and thanks in Spanish and English as chitchat", () => {
    for (const message of [
      "hola",
      "¡Hola!",
      "Buenos días",
      "buenas tardes",
      "Muchas gracias",
      "Hola, gracias",
      "hi",
      "Hello!",
      "Thank you",
      "thanks a lot",
      "Good morning.",
    ]) {
      expect(heuristicIntent(message), message).to.equal("chitchat");
    }
  });

  it("settles progress questions in Spanish and English", () => {
    for (const message of [
      "¿Cómo voy?",
      "¿Cuál es mi progreso?",
      "¿Cuáles son mis fechas límite?",
      "¿Qué debería repasar?",
      "What is my progress and my deadlines?",
      "How am I doing?",
      "Show me my grades",
      "What are my courses?",
    ]) {
      expect(heuristicIntent(message), message).to.equal("progress");
    }
  });

  it("settles greetings, thanks and progress questions in French, German and Portuguese too", () => {
    for (const message of ["Bonjour !", "Merci beaucoup", "Hallo", "Danke schön!", "Vielen Dank", "Olá", "Bom dia", "Muito obrigada!"]) {
      expect(heuristicIntent(message), message).to.equal("chitchat");
    }
    for (const message of [
      "Quelle est ma progression ?",
      "Wie ist mein Fortschritt?",
      "Zeig mir meine Kurse",
      "Qual é o meu progresso?",
      "Quais são os meus cursos?",
    ]) {
      expect(heuristicIntent(message), message).to.equal("progress");
    }
    for (const message of ["Bonjour, combien de jours pour un retour ?", "Hallo, wer darf den Gabelstapler fahren?", "Olá, como devolvo um produto?"]) {
      expect(heuristicIntent(message), message).to.equal(null);
    }
  });

  it("leaves real questions to the model, including ones that merely start with a greeting", () => {
    for (const message of [
      "How many days do I have to return an item for a refund?",
      "Hola, ¿cuántos kg puedo levantar solo?",
      "Hi, what is ZEBRA-7?",
      "¿Qué necesito para conducir una carretilla elevadora?",
      "okay so what about gift cards",
    ]) {
      expect(heuristicIntent(message), message).to.equal(null);
    }
  });

  it("does not mistake a policy question about a deadline for a question about the employee's own progress", () => {
    expect(heuristicIntent("What is the deadline to return a faulty kettle?")).to.equal(null);
    expect(heuristicIntent("¿Cuál es la fecha límite para devolver un producto?")).to.equal(null);
    // Their own deadlines still are.
    expect(heuristicIntent("When are my deadlines?")).to.equal("progress");
    expect(heuristicIntent("¿Cuándo son mis fechas límite?")).to.equal("progress");
  });
});

describe("jsonIntent (local models that answer JSON, fenced or amid prose)", () => {
  it("reads the label from bare, fenced or embedded JSON, whatever explanation sits beside it", () => {
    expect(jsonIntent('{"intent": "progress"}')).to.equal("progress");
    expect(jsonIntent('"chitchat"')).to.equal("chitchat");
    expect(jsonIntent('Sure:\n```json\n{"label": "in_course", "confidence": 0.9}\n```')).to.equal("in_course");
    expect(jsonIntent('My answer is {"reasoning": "mentions in_course first", "category": "off_topic"} as asked.')).to.equal("off_topic");
  });

  it("gives null, leaving the text to parseIntent, when the JSON names no valid label", () => {
    expect(jsonIntent('{"intent": "banana"}')).to.equal(null);
    expect(jsonIntent('{"intent": ["in_course"]}')).to.equal(null);
    expect(jsonIntent("in_course")).to.equal(null);
    expect(jsonIntent("")).to.equal(null);
  });
});
