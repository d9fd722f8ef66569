/** Portuguese (Portugal and Brazil: both spellings where they differ). */
import { stemmer } from "@orama/stemmers/portuguese";
import { messagesFor } from "../messages";
import { type LanguagePack, phraseList, wordList } from "./pack";

export const portuguese = {
  code: "pt",
  messages: messagesFor("pt"),
  greetings: phraseList("ola, oi, bom dia, boa tarde, boa noite, tchau, ate logo, ate mais, tudo bem"),
  thanks: phraseList("obrigado, obrigada, muito obrigado, muito obrigada, valeu, agradeco"),
  acknowledgements: phraseList("otimo, perfeito, beleza"),
  shortReplyWords: wordList("sim desculpa"),
  progressPhrases: phraseList("o meu progresso, meu progresso, minhas notas, meus cursos, os meus cursos, meus prazos, minhas competencias"),
  confirmation: {
    yes: phraseList("sim, pode, pode ser, confirmo sim, certo, com certeza, avance, avanca, faca, faz isso, claro que sim, esta bem"),
    no: phraseList("nao, nao obrigado, nao obrigada, agora nao, melhor nao, de jeito nenhum, deixa para la, esquece"),
    stop: phraseList("pare, pare tudo, parar tudo, interrompe, interrompa"),
    polite: phraseList("obrigado, obrigada, por favor"),
    fillers: phraseList("agora, entao"),
    and: ["e"],
    questionOpeners: wordList("como porque quando onde quem qual quais quanto quantos quantas posso devo existe"),
    hedges: phraseList("se puder, se for, talvez, acho que, nao sei, nao tenho certeza, a nao ser que, desde que"),
    changeWords: wordList("adiciona acrescenta tambem troca retira tira apenas exceto substitui"),
  },
  grounding: {
    stopWords: wordList(
      `o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela para com sem sobre e ou que qual quais quanto quantos
      quantas como quando onde quem porque meu minha meus minhas seu sua seus suas eu voce ele ela eles elas me se te lhe sao esta estao
      tem ha posso pode isso isto esse essa este nao sim mais
      pra pro ao aos na no nas nos da do das dos num numa pelo pela meu minha meus minhas seu sua nosso nossa lhe mesmo mesma ainda ja tambem so muito pouco isso isto aquilo aqui ali la tenho tem temos tive teve entao mas`,
    ),
    frameWords: wordList(
      `empresa empresas companhia organizacao diz dizem dizer explica explicar significa saber sei preciso precisa quero queremos usar
      acontece forma maneira melhor bom boa novo nova fazer faz faco devo deve devem tenho coisa coisas exatamente segundo cada todo
      todos toda todas outro outra outros outras muito tambem ja entre ate desde mas nem ser estar foi era podem permitido permite regra regras
      fazer faco faz posso pode podem preciso precisa quero queria saber`,
    ),
    everydayWords: wordList(
      `dia dias semana semanas mes meses ano anos hora horas minuto minutos tempo hoje amanha noite levar trazer ir vou vai vir colocar
      pedir dar enviar mandar preencher ajudar formulario formularios equipe equipa equipes pessoa pessoas gente alguem tipo tipos parte
      lugar numero lista informacao pergunta problema caso primeiro primeira ultimo ultima proximo rapido logo vez vezes um dois tres
      quatro cinco seis sete oito nove dez cem
      janeiro fevereiro marco abril maio junho julho agosto setembro outubro novembro dezembro`,
    ),
    wordFamilies: [
      "produto artigo mercadoria",
      "reembolso reembolsar",
      "recibo fatura comprovante talão talao",
      "comprar compra comprei",
      "cliente comprador freguês fregues",
      "funcionário funcionario colaborador colega empregado trabalhador",
      "gerente chefe supervisor gestor",
      "defeituoso avariado quebrado danificado estragado",
      "trocar troca substituir substituição substituicao",
      "reclamação reclamacao queixa",
      "devolver devolução devolucao devoluções devolucoes",
      "treinamento treinamentos formação formacao curso cursos capacitação capacitacao",
      "férias ferias folga",
      "prazo período periodo",
    ],
    phraseRewrites: [],
    clauseJoiners: wordList("e ou também tambem"),
    questionWords: wordList("que qual quais quanto quantos quantas como quando onde quem porque posso devo pode tenho existe"),
  },
  workplaceTerms: {
    timeOff: "compensar compensação compensacao folga",
    advance: "antecedência antecedencia",
    work: "trabalho trabalhar",
    leave: "férias ferias",
    sick: "doente doença doenca",
    medicalNote: "médico medico atestado",
    overtime: "extraordinárias extraordinarias",
    rest: "pausa intervalo",
    expenses: "despesas",
    receipt: "recibo talão talao fatura",
    refund: "reembolso reembolsar reembolsado",
    pay: "pagar pago pagos",
    salary: "salário salario ordenado",
    hotel: "hotel alojamento",
    night: "noite noites",
    meal: "refeição refeicao refeições",
    allowance: "subsídio subsidio",
    trip: "viagem viagens viajar",
    booking: "reservar reserva",
    abroad: "estrangeiro",
    car: "carro",
    distance: "quilómetro quilometro",
    password: "senha",
    computer: "portátil portatil computador",
    phone: "telemóvel telemovel telefone celular",
    loss: "perdi perdido roubado roubo",
    email: "email correio",
    suspicious: "suspeito estranho",
    attachment: "anexo anexos",
    training: "formação formacao treinamento curso",
    language: "língua lingua línguas linguas idioma idiomas inglês ingles",
    probation: "experimental experiência experiencia",
    newHire: "admitido admitidos contratado contratados",
    manager: "chefe gestor responsável responsavel",
    safety: "segurança seguranca proteção protecao",
    equipment: "equipamento",
    forklift: "empilhador empilhadeira",
    warehouse: "armazém armazem",
    speed: "velocidade",
    accident: "acidente",
    notify: "avisar comunicar reportar",
    submit: "submeter entregar",
    approval: "aprovar aprovado autorizar",
    wedding: "casamento casar",
    colleague: "colega colegas funcionário funcionario funcionários",
    day: "dia dias diário",
    week: "semana semanas",
    month: "meses",
    year: "ano anos anual",
    hour: "hora horas",
    minute: "minuto minutos",
    france: "frança franca francês",
    germany: "alemanha alemão alemao",
    spain: "espanha espanhol",
    portugal: "portugal português portugues",
    italy: "itália italia italiano",
  },
  stem: stemmer,
  judgeStems: true,
  healthTerms: {
    neurodivergence: wordList("tdah tdha autis asperger dislex discalc neurodiver tourette"),
    mental_health: phraseList("depressao, ansiedad, burnout, bipolar, suicid, saude mental, ataque de panico"),
    disability: phraseList("deficiencia, cadeira de rodas"),
    medical: wordList("diagnos sintoma medicamento doenca cronic epilep diabet cancer"),
  },
  fallbacks: {
    "grounding.phraseRewrites":
      "Portuguese names a return or a refund with its own verbs (devolver, reembolsar), which the word families hold; no phrase stands for them as 'bring it back' does in English.",
  },
} satisfies LanguagePack;
