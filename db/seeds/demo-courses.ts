/**
 * Courses of the demo organisation. Lesson text deliberately restates its source document so a
 * grounded answer can be checked against either; the second module of the safety course is kept
 * thin on purpose, so the tutor has a case where the lesson alone is not enough and it must fall
 * back to the source manual.
 */
import type { DocumentKey } from "./demo-documents";

export type CourseKey = "returnsEssentials" | "warehouseSafety" | "customerExcellence";

export interface DemoExercise {
  prompt: string;
  kind: "multiple_choice" | "true_false" | "short_answer";
  answer: Record<string, unknown>;
}

export interface DemoLesson {
  title: string;
  content: string;
  exercises: DemoExercise[];
}

export interface DemoModule {
  title: string;
  summary: string;
  lessons: DemoLesson[];
}

export interface DemoCourse {
  key: CourseKey;
  title: string;
  description: string;
  language: "es" | "en";
  source: DocumentKey | null;
  modules: DemoModule[];
}

const choice = (options: string[], correct: number): Record<string, unknown> => ({ options, correct });

export const DEMO_COURSES: readonly DemoCourse[] = [
  {
    key: "returnsEssentials",
    title: "Returns Essentials",
    description: "How to accept, refuse, exchange and refund returned items under the Acme returns policy.",
    language: "en",
    source: "returnsPolicy",
    modules: [
      {
        title: "The Refund Window and Item Condition",
        summary: "Counting the 30-day refund window and deciding whether a returned item is in acceptable condition.",
        lessons: [
          {
            title: "Counting the 30 days",
            content:
              "Most items can be returned within 30 calendar days for a full refund. Start counting the day after the purchase (or the delivery date for online orders) and include weekends and holidays. After day 30 only a manager can authorise store credit, and the reason must be logged.",
            exercises: [
              {
                prompt: "A customer bought a lamp on 1 March. What is the last day for a full refund?",
                kind: "multiple_choice",
                answer: choice(["15 March", "31 March", "30 April"], 1),
              },
            ],
          },
          {
            title: "Checking the condition of goods",
            content:
              "Accept items that are unused, in original packaging and with all accessories and tags. Worn or incomplete items may be refused or refunded at up to 50% of their value at the manager's discretion. Inspect the item in front of the customer.",
            exercises: [
              {
                prompt: "Sealed electronics can be returned with the seal broken even if they work. True or false?",
                kind: "true_false",
                answer: { correct: false },
              },
            ],
          },
        ],
      },
      {
        title: "Receipts and Exchanges",
        summary: "What counts as proof of purchase, what to do without a receipt, and how price differences work in exchanges.",
        lessons: [
          {
            title: "When there is no receipt",
            content:
              "Paper receipts, digital receipts, order confirmations and loyalty-card look-ups all count as proof of purchase. Without proof, offer store credit at the lowest price of the last 60 days, at most three times per customer per year. Photocopies are never accepted.",
            exercises: [{ prompt: "How many receipt-less returns may a customer make per year?", kind: "short_answer", answer: { expected: "3" } }],
          },
          {
            title: "Processing an exchange",
            content:
              "Within 30 days an item can be exchanged for another size, colour or model. The customer pays any difference upwards; a difference downwards is refunded to the original payment method. Faulty items can be exchanged for the same product for the whole warranty period.",
            exercises: [
              { prompt: "A faulty kettle bought 5 months ago is still under warranty. Can it be exchanged?", kind: "true_false", answer: { correct: true } },
            ],
          },
        ],
      },
      {
        title: "Refunds and Exceptions",
        summary: "Refunding to the original payment method within 5 business days, and the items that cannot be returned.",
        lessons: [
          {
            title: "Refunding to the original payment method",
            content:
              "Refunds always go back to the original payment method. Card refunds are processed within 5 business days; cash is refunded in cash up to 200 EUR and by bank transfer above that. Never refund to a different card or person.",
            exercises: [{ prompt: "Within how many business days are card refunds processed?", kind: "multiple_choice", answer: choice(["2", "5", "10"], 1) }],
          },
          {
            title: "Items we cannot take back",
            content:
              "Unless faulty, these cannot be returned: perishables and flowers, gift cards and top-up cards, underwear or swimwear without the hygiene seal, personalised products and final-sale items. Check the shelf label and the receipt for the final-sale mark.",
            exercises: [
              {
                prompt: "Which of these can be returned if unused: a gift card, a final-sale jacket, or a boxed toaster?",
                kind: "multiple_choice",
                answer: choice(["Gift card", "Final-sale jacket", "Boxed toaster"], 2),
              },
            ],
          },
        ],
      },
    ],
  },
  {
    key: "warehouseSafety",
    title: "Seguridad en el Almacén",
    description: "Normas básicas de seguridad para trabajar en el almacén: EPP, cargas, carretillas y evacuación.",
    language: "es",
    source: "warehouseSafety",
    modules: [
      {
        title: "Protección Personal y Manipulación de Cargas",
        summary: "Qué equipo de protección es obligatorio y cómo levantar cargas de hasta 25 kg sin lesionarse.",
        lessons: [
          {
            title: "El EPP obligatorio",
            content:
              "En el almacén son obligatorios el calzado de seguridad y el chaleco de alta visibilidad. Usa guantes al manipular palés o flejes y casco en la zona de estanterías altas. Si tu EPP está deteriorado, pide uno nuevo a tu responsable de turno.",
            exercises: [{ prompt: "¿Dónde es obligatorio el casco?", kind: "short_answer", answer: { expected: "En la zona de estanterías altas" } }],
          },
          {
            title: "Levantar cargas sin lesionarse",
            content:
              "Nadie levanta solo más de 25 kg: usa una transpaleta o pide ayuda. Dobla las rodillas, mantén la espalda recta, sujeta la carga pegada al cuerpo y gira con los pies, nunca con el tronco.",
            exercises: [
              {
                prompt: "¿Cuál es el peso máximo que una persona puede levantar sola?",
                kind: "multiple_choice",
                answer: choice(["15 kg", "25 kg", "40 kg"], 1),
              },
            ],
          },
        ],
      },
      {
        title: "Carretillas y Emergencias",
        summary: "Quién puede conducir carretillas elevadoras y qué hacer cuando suena la alarma de evacuación.",
        lessons: [
          { title: "Carretillas elevadoras", content: "Solo personal certificado puede conducirlas.", exercises: [] },
          { title: "Evacuación", content: "Al oír la alarma, sal con calma por la salida más cercana.", exercises: [] },
        ],
      },
    ],
  },
  {
    key: "customerExcellence",
    title: "Excelencia en Atención al Cliente",
    description: "Cómo escuchar, resolver quejas y escalar casos para que cada cliente salga satisfecho.",
    language: "es",
    source: null,
    modules: [
      {
        title: "Escucha y Empatía",
        summary: "Saludar a tiempo, escuchar sin interrumpir y aplicar el método LAST ante una queja.",
        lessons: [
          {
            title: "Saludar y escuchar",
            content:
              "Saluda a cada cliente en menos de 30 segundos, usa su nombre si lo conoces y evita la jerga interna. Escucha hasta el final antes de proponer una solución.",
            exercises: [{ prompt: "¿En cuánto tiempo hay que saludar a un cliente?", kind: "short_answer", answer: { expected: "30 segundos" } }],
          },
          {
            title: "Gestionar una queja",
            content:
              "Aplica LAST: escucha (Listen), pide disculpas (Apologise), resuelve o explica el siguiente paso (Solve) y da las gracias (Thank). No discutas sobre la culpa.",
            exercises: [],
          },
        ],
      },
      {
        title: "Escalado y Seguimiento",
        summary: "Cuándo escalar un caso al equipo de nivel 2 y cómo cerrarlo con un seguimiento útil.",
        lessons: [
          {
            title: "Cuándo escalar un caso",
            content:
              "Escala si hay un riesgo de seguridad del producto, una amenaza legal o tres contactos por el mismo problema. Etiqueta el ticket con el código ZEBRA-7 y avisa al cliente de que le contactarán en un día laborable.",
            exercises: [{ prompt: "¿Qué código de escalado se usa para enviar un ticket al nivel 2?", kind: "short_answer", answer: { expected: "ZEBRA-7" } }],
          },
          {
            title: "Cerrar la conversación",
            content:
              "Resume lo acordado, confirma que no quedan dudas y cierra con el código de motivo correcto. En casos escalados, programa una llamada de seguimiento a los 7 días.",
            exercises: [],
          },
        ],
      },
    ],
  },
];
