/** Whether a bind address is reachable only from this machine (dev-login is safe only there). */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}
