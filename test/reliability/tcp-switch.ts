/**
 * A TCP relay in front of a real service that a test can switch off and on: "off" closes the
 * listening port (new connections are refused) and cuts every open connection, which is what a
 * process sees when its database host goes away; "on" listens on the same port again.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export interface TcpSwitch {
  /** `host:port` clients should use instead of the real service's. */
  address: string;
  off(): Promise<void>;
  on(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpSwitch(target: { host: string; port: number }): Promise<TcpSwitch> {
  const open = new Set<Socket>();
  const relay = (client: Socket): void => {
    const upstream = connect(target.port, target.host);
    open.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  };
  let server: Server = createServer(relay);
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
    });
  const port = await listen(0);
  const off = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of open) socket.destroy();
      open.clear();
    });
  };
  return {
    address: `127.0.0.1:${port}`,
    off,
    async on() {
      server = createServer(relay);
      await listen(port);
    },
    async close() {
      if (server.listening) await off();
    },
  };
}

/** The same database URL, pointed at the switch. */
export function throughSwitch(databaseUrl: string, tcpSwitch: TcpSwitch): string {
  const url = new URL(databaseUrl);
  url.host = tcpSwitch.address;
  return url.toString();
}

export function targetOf(databaseUrl: string): { host: string; port: number } {
  const url = new URL(databaseUrl);
  return { host: url.hostname, port: Number(url.port || 5432) };
}
