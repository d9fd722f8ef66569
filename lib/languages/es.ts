/** Spanish: with English, the language the grounding judge's floors were measured in. */
import { stemmer } from "@orama/stemmers/spanish";
import { messagesFor } from "../messages";
import { type LanguagePack, phraseList, wordList } from "./pack";

export const spanish = {
  code: "es",
  messages: messagesFor("es"),
  greetings: phraseList("hola, buenas, buenos dias, buenas tardes, buenas noches, que tal, saludos, adios, chao, hasta luego, hasta pronto"),
  thanks: phraseList("gracias, muchas gracias, mil gracias"),
  acknowledgements: phraseList("vale, genial, perfecto, bien"),
  // With the admin assistant's stop words below: a plain "para" is answered in Spanish.
  shortReplyWords: wordList("si porfa favor por perdon para paralo parala parar detente deten detenlo detenla detener basta"),
  progressPhrases: phraseList(
    "mi progreso, mi nota, mis notas, cuanto llevo, como voy, mi fecha limite, mis fechas limite, mis cursos, repasos pendientes, " +
      "que deberia repasar, mis habilidades",
  ),
  confirmation: {
    yes: phraseList(
      "si, sip, claro, claro que si, vale, dale, venga, adelante, hazlo, confirmo, confirmado, confirmada, confirmar, confirma, " +
        "de acuerdo, por supuesto, esta bien, me parece bien, procede, ejecuta, ejecutalo, ejecutala, correcto, exacto, eso es, " +
        "afirmativo, aprobado, apruebo, perfecto, sigue, adelante con ello",
    ),
    no: phraseList(
      "cancela, cancelar, cancelalo, cancelala, cancela eso, cancelalo todo, rechazar, rechazo, rechazala, rechazalo, ahora no, " +
        "olvidalo, dejalo, no lo hagas, no hagas nada, para, ni hablar, de ninguna manera, creo que no, negativo",
    ),
    stop: phraseList(
      "para, paralo, parala, para eso, para la accion, paralo todo, parar, detente, deten, detenlo, detenla, deten la accion, detenlo todo, detener, " +
        "cancela, cancelalo, cancelala, aborta, abortar, basta, alto",
    ),
    polite: phraseList("por favor, porfa, porfavor, gracias, muchas gracias, mil gracias"),
    fillers: phraseList("entonces, ya, ahora, ahora mismo"),
    and: ["y"],
    questionOpeners: wordList(
      "que como cual cuales cuando donde quien quienes cuanto cuanta cuantos cuantas porque puedes puede podrias podria hay seguro seguros",
    ),
    hedges: phraseList(
      "y si, cuando, a menos que, siempre que, en caso de, con tal de, quizas, quiza, tal vez, a lo mejor, creo, supongo, no se, " +
        "no estoy seguro, no estoy segura, puede que",
    ),
    changeWords: wordList(
      "anade agrega agregar incluye incluir tambien quita quitar excluye cambia cambiar asigna asignar inscribe desactiva archiva verifica pon ponle solo excepto ademas " +
        "sin sustituye reemplaza mueve",
    ),
  },
  grounding: {
    stopWords: wordList(
      `que el la los las de del y en es por para como cual cuales cuantos cuantas cuando un una unos mi mis se con sobre donde lo al me te su
      sus hay puedo tengo son esta este o si no
      oye pues`,
    ),
    frameWords: wordList(
      `empresa empresas compania organizacion dice dicen decir explica explican significa saber sabes necesito quiero queremos usar
      pasa ocurre forma manera mejor bueno buena nuevo nueva hacer hace hago debo debe deben tiene tienen cosa cosas exactamente segun
      cada todo todos toda todas otro otra otros otras mas muy tambien ya sin entre hasta desde porque pero ni usa usan uso ser estar esta
      estan fue era han ha puede pueden quien quienes cuanto cuanta adonde yo permite permitido
      quiero queria saber`,
    ),
    everydayWords: wordList(
      `dia dias semana semanas mes meses ano anos hora horas minuto minutos tiempo hoy manana noche
      llevar llevo lleva traer ir voy va venir poner pedir dar da dan doy enviar mandar rellenar ayudar
      formulario formularios equipo equipos persona personas gente alguien tipo tipos parte lugar numero lista informacion pregunta problema caso
      primero primera ultimo ultima siguiente rapido pronto vez veces uno dos tres cuatro cinco seis siete ocho nueve diez cien
      enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre`,
    ),
    wordFamilies: [
      "producto articulo artículo mercancia mercancía",
      "devolver devolución devolucion devuelvo devuelve devuelven devoluciones",
      "reembolso reembolsar",
      "recibo ticket comprobante factura",
      "comprar compra compré",
      "jefe responsable encargado supervisor",
      "peso kilo kilos kg pesado",
      "solo sola",
      "volver vuelva vuelvas vuelvo",
      "renovar renueva renuevan renovada renovación renovacion",
      "velocidad rápido rapido",
    ],
    // "llevar puesto" is wearing: "llevar"; "ponerse malo" is falling ill.
    phraseRewrites: [
      [/\b(?:llevar|llevo|lleva|llevamos|llevan)\s+puest[oa]s?\b/giu, "llevar"],
      [/\b(?:me\s+|te\s+|se\s+)?(?:ponerse|ponerme|pongo|pone|puse|puso|pongas|ponga)\s+mal[oa]\b/giu, "enfermo"],
    ],
    clauseJoiners: wordList("y o además ademas"),
    questionWords: wordList(
      "qué que cómo como cuánto cuánta cuántos cuántas cuanto cuantos cuál cual cuáles dónde donde adónde cuándo cuando quién quien puedo puede debo hay tengo tiene",
    ),
  },
  workplaceTerms: {
    timeOff: "compensar compensación compensacion compensadas",
    advance: "antelación antelacion anticipación anticipacion",
    work: "trabajo trabajar",
    leave: "vacaciones",
    sick: "enfermo enferma enfermedad",
    medicalNote: "médico medico justificante",
    overtime: "extras",
    rest: "pausa descanso",
    expenses: "gastos",
    receipt: "recibo tique ticket factura",
    refund: "reembolso reembolsar reembolsan",
    pay: "pagar pagado pagan",
    salary: "salario sueldo",
    hotel: "hotel alojamiento",
    night: "noche noches",
    meal: "comida comidas",
    allowance: "dieta dietas",
    trip: "viaje viajes viajar",
    booking: "reservar reserva",
    abroad: "extranjero",
    car: "coche",
    distance: "kilómetro kilometro",
    password: "contraseña contrasena",
    computer: "portátil portatil ordenador",
    phone: "móvil movil teléfono telefono",
    loss: "perdido perder robado robo",
    email: "correo email",
    suspicious: "sospechoso extraño extrano raro",
    attachment: "adjunto adjuntos",
    training: "formación formacion curso cursos",
    language: "idioma idiomas inglés ingles",
    probation: "prueba",
    newHire: "incorporación incorporacion incorporaciones contratado contratados",
    manager: "responsable jefe jefa",
    safety: "seguridad protección proteccion",
    equipment: "equipo equipamiento",
    forklift: "carretilla carretillas",
    warehouse: "almacén almacen",
    speed: "velocidad",
    accident: "accidente",
    notify: "avisar avisa avise informar comunicar",
    submit: "presentar entregar",
    approval: "aprobar aprobado autorizar",
    wedding: "boda matrimonio casarse",
    colleague: "compañero compañeros companero empleado empleados",
    day: "día dia días dias diario",
    week: "semana semanas",
    month: "meses",
    year: "año años ano anual",
    hour: "hora horas",
    minute: "minuto minutos",
    france: "francia francés frances",
    germany: "alemania alemán aleman",
    spain: "españa espana español",
    portugal: "portugal portugués portugues",
    italy: "italia italiano",
  },
  stem: stemmer,
  judgeStems: false,
  healthTerms: {
    neurodivergence: wordList("tdah autis asperger dislex dispra discalc neurodiver tourette"),
    mental_health: phraseList("depresion, ansiedad, burnout, bipolar, suicid, salud mental, ataque de panico, ataques de panico"),
    disability: phraseList("discapacid, discapacit, silla de ruedas"),
    medical: wordList("diagnos sintoma enfermedad medicamento cronic epilep diabet cancer"),
  },
  fallbacks: {},
} satisfies LanguagePack;
