/**
 * Source documents of the demo organisation. Each exercises a different retrieval path: the
 * returns manual is chunked and embedded (semantic search), the warehouse manual has full text
 * but no chunks (whole-document / structure-based fallback), and the playbook carries a rare
 * literal token, ZEBRA-7, that only keyword search can find reliably.
 */

export type DocumentKey = "returnsPolicy" | "warehouseSafety" | "servicePlaybook";

export interface DemoSection {
  heading: string;
  body: string;
  pageStart: number;
  pageEnd: number;
}

export interface DemoDocument {
  key: DocumentKey;
  title: string;
  filename: string;
  mimeType: string;
  language: "es" | "en";
  /** Whether the seed writes chunks (with embeddings) for it. */
  chunked: boolean;
  sections: DemoSection[];
}

export const DEMO_DOCUMENTS: readonly DemoDocument[] = [
  {
    key: "returnsPolicy",
    title: "Returns Policy Manual",
    filename: "returns-policy-manual.pdf",
    mimeType: "application/pdf",
    language: "en",
    chunked: true,
    sections: [
      {
        heading: "1. Refund Window",
        pageStart: 1,
        pageEnd: 2,
        body: "Customers may return most items within 30 days of the purchase date for a full refund. The 30 days are counted in calendar days, starting the day after the purchase, and include weekends and public holidays. For online orders the window starts on the delivery date shown in the order history. After day 30 a store manager may authorise store credit only, never a cash refund, and must record the reason in the returns log.",
      },
      {
        heading: "2. Condition of Goods",
        pageStart: 2,
        pageEnd: 3,
        body: "Returned goods must be unused, in their original packaging and with all accessories, manuals and tags attached. Items that show wear, missing parts or damage caused by the customer may be refused or refunded at a reduced value of up to 50% at the manager's discretion. Electronics must be returned with seals intact unless the item is faulty. Always inspect the item in front of the customer before accepting it.",
      },
      {
        heading: "3. Receipts and Proof of Purchase",
        pageStart: 3,
        pageEnd: 4,
        body: "A receipt, digital receipt or order confirmation is required for a refund. Loyalty-card purchases can be looked up in the point-of-sale system and count as proof of purchase. Without any proof of purchase the customer may receive store credit for the lowest selling price of the item in the last 60 days, limited to three receipt-less returns per customer per year. Never accept a photocopied receipt.",
      },
      {
        heading: "4. Exchanges",
        pageStart: 4,
        pageEnd: 5,
        body: "Within the 30-day window customers may exchange an item for a different size, colour or model. If the new item costs more, the customer pays the difference; if it costs less, the difference is refunded to the original payment method. Faulty items can be exchanged for the same product at any time during the manufacturer's warranty, even after the refund window has closed.",
      },
      {
        heading: "5. Refunds to the Original Payment Method",
        pageStart: 5,
        pageEnd: 6,
        body: "Refunds are always issued to the original payment method. Card refunds are processed within 5 business days; the customer's bank may take longer to show the credit. Cash purchases are refunded in cash up to 200 EUR; larger amounts are paid by bank transfer. Gift-card purchases are refunded to a new gift card. Staff must never refund to a different card or person.",
      },
      {
        heading: "6. Exceptions: Perishables, Gift Cards and Final Sale",
        pageStart: 6,
        pageEnd: 7,
        body: "The following items cannot be returned unless they are faulty: perishable food and flowers, gift cards and prepaid top-up cards, underwear and swimwear with the hygiene seal removed, personalised or made-to-order products, and items marked as final sale at the time of purchase. Final-sale items are clearly labelled on the shelf and on the receipt. When in doubt, call the store manager before refusing a return.",
      },
    ],
  },
  {
    key: "warehouseSafety",
    title: "Manual de Seguridad en Almacén",
    filename: "manual-seguridad-almacen.pdf",
    mimeType: "application/pdf",
    language: "es",
    chunked: false,
    sections: [
      {
        heading: "1. Equipos de Protección Individual (EPP)",
        pageStart: 1,
        pageEnd: 2,
        body: "En toda la zona de almacén es obligatorio llevar calzado de seguridad con puntera reforzada y chaleco de alta visibilidad. Los guantes de protección son obligatorios al manipular palés, flejes o cajas con bordes cortantes. El casco es obligatorio en la zona de estanterías altas. El EPP se entrega al incorporarse y se repone gratuitamente cuando se deteriora: pídelo a tu responsable de turno.",
      },
      {
        heading: "2. Manipulación Manual de Cargas",
        pageStart: 2,
        pageEnd: 3,
        body: "El peso máximo que una persona puede levantar sola es de 25 kg. Por encima de ese peso se debe usar una transpaleta o pedir ayuda a un compañero. Para levantar una carga: acércate a ella, separa los pies, dobla las rodillas manteniendo la espalda recta y sujeta la carga pegada al cuerpo. No gires el tronco con la carga en las manos; gira con los pies.",
      },
      {
        heading: "3. Carretillas Elevadoras",
        pageStart: 3,
        pageEnd: 4,
        body: "Solo puede conducir carretillas elevadoras el personal con certificación vigente de operador, renovada cada tres años. Antes de cada turno el operador revisa frenos, bocina, luces y horquillas y anota la revisión en la hoja de control. La velocidad máxima dentro del almacén es de 10 km/h. Está prohibido transportar personas en la carretilla o elevar a nadie sobre las horquillas.",
      },
      {
        heading: "4. Orden, Limpieza y Almacenamiento",
        pageStart: 4,
        pageEnd: 5,
        body: "Los pasillos y las salidas de emergencia deben estar siempre despejados. Las cargas más pesadas se colocan en los niveles bajos de las estanterías y nunca se supera la carga máxima indicada en cada módulo. Cualquier derrame se señaliza y se limpia de inmediato. Los palés dañados se retiran del uso y se llevan a la zona de reciclaje.",
      },
      {
        heading: "5. Evacuación y Emergencias",
        pageStart: 5,
        pageEnd: 6,
        body: "Al oír la alarma de evacuación, detén la máquina que estés usando, deja la carga en el suelo y sal por la salida de emergencia más cercana sin correr. El punto de reunión está en el aparcamiento norte. No vuelvas a entrar hasta que el coordinador de emergencias lo autorice. Cada responsable de turno comprueba la lista de asistencia en el punto de reunión.",
      },
      {
        heading: "6. Notificación de Incidentes",
        pageStart: 6,
        pageEnd: 6,
        body: "Todo accidente o casi accidente se comunica al responsable de turno en el mismo turno y se registra en el parte de incidentes en un plazo de 24 horas. Informar de un casi accidente no tiene consecuencias disciplinarias: nos permite corregir el riesgo antes de que alguien se lesione.",
      },
    ],
  },
  {
    key: "servicePlaybook",
    title: "Customer Service Playbook",
    filename: "customer-service-playbook.docx",
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    language: "en",
    chunked: true,
    sections: [
      {
        heading: "1. Greeting and Tone",
        pageStart: 1,
        pageEnd: 1,
        body: "Greet every customer within 30 seconds of them reaching the counter or opening a chat. Use their name if you know it, keep a calm and friendly tone, and avoid internal jargon such as SKU or RMA. Answer in the customer's language whenever you can; Spanish and English are supported in every store.",
      },
      {
        heading: "2. Handling Complaints",
        pageStart: 2,
        pageEnd: 3,
        body: "Use the LAST approach: Listen without interrupting, Apologise for the experience, Solve the problem or explain the next step, and Thank the customer. Never argue about who is at fault. If the solution needs a refund outside the returns policy, offer what you can do now and ask a manager for the rest.",
      },
      {
        heading: "3. Ticket Escalation",
        pageStart: 3,
        pageEnd: 4,
        body: "Escalate a ticket when the customer reports a product safety hazard, mentions legal action or a regulator, or has contacted us three or more times about the same issue. Tag the ticket with the ticket escalation code ZEBRA-7 so it is routed to the Tier 2 resolution team, and tell the customer they will be contacted within one business day. Do not promise compensation before Tier 2 has reviewed the case.",
      },
      {
        heading: "4. Response Time Targets",
        pageStart: 4,
        pageEnd: 5,
        body: "Chat messages are answered within 2 minutes, emails within 24 hours and social media mentions within 4 hours during opening times. A ticket that breaches its target is highlighted in red on the team dashboard; pick up the oldest red ticket first.",
      },
      {
        heading: "5. Closing and Follow-up",
        pageStart: 5,
        pageEnd: 5,
        body: "Before closing, summarise what was agreed and confirm the customer has no further questions. Close the ticket with the correct reason code and, for escalated cases, schedule a follow-up call after 7 days to make sure the solution worked.",
      },
    ],
  },
];

/** One section as both a chunk and a slice of the full text: heading line, blank line, body. */
export function sectionText(section: DemoSection): string {
  return `## ${section.heading}\n\n${section.body}`;
}

export function documentFullText(doc: DemoDocument): string {
  return [`# ${doc.title}`, ...doc.sections.map(sectionText)].join("\n\n");
}
