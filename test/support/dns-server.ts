/**
 * A DNS server of the test's own on loopback (dns2, UDP), so domain verification is tested against
 * real lookups without the internet: TXT records are published and withdrawn per name, and the
 * server can be told to answer SERVFAIL or to say nothing at all (a resolver that hangs).
 */
import dns2 from "dns2";

const { Packet } = dns2;

export type DnsMode = "answer" | "servfail" | "silent";

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_RESOLVERS. */
  address: string;
  publishTxt(name: string, ...values: string[]): void;
  withdraw(name: string): void;
  setMode(mode: DnsMode): void;
  /** How many queries arrived, by name. */
  queries(name: string): number;
  close(): Promise<void>;
}

export async function startTestDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const asked = new Map<string, number>();
  let mode: DnsMode = "answer";
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const [question] = request.questions;
      const name = (question?.name ?? "").toLowerCase();
      asked.set(name, (asked.get(name) ?? 0) + 1);
      if (mode === "silent") return;
      const response = Packet.createResponseFromRequest(request);
      if (mode === "servfail") response.header.rcode = Packet.RCODE.SERVFAIL;
      else if (question?.type === Packet.TYPE.TXT && records.has(name)) {
        for (const data of records.get(name)!) {
          // dns2 encodes plain objects; its type asks for a Resource instance.
          const record = { name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data };
          response.answers.push(record as unknown as (typeof response.answers)[number]);
        }
      } else if (!records.has(name)) response.header.rcode = Packet.RCODE.NXDOMAIN;
      void send(response);
    },
  });
  const listening = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  return {
    address: `127.0.0.1:${listening.udp!.port}`,
    publishTxt: (name, ...values) => records.set(name.toLowerCase(), values),
    withdraw: (name) => records.delete(name.toLowerCase()),
    setMode: (next) => {
      mode = next;
    },
    queries: (name) => asked.get(name.toLowerCase()) ?? 0,
    close: () => server.close(),
  };
}
