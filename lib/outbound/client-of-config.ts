/** The deployment's outbound client, as OUTBOUND_ALLOWED_CIDRS shapes it (one per distinct setting, so every caller shares it). */
import type { Config } from "../config";
import { AddressPolicy } from "./address-policy";
import { OutboundClient } from "./client";

const clients = new Map<string, OutboundClient>();

export function outboundClientOf(config: Pick<Config, "outbound">): OutboundClient {
  let client = clients.get(config.outbound.OUTBOUND_ALLOWED_CIDRS);
  if (!client) {
    client = new OutboundClient(new AddressPolicy(config.outbound.OUTBOUND_ALLOWED_CIDRS));
    clients.set(config.outbound.OUTBOUND_ALLOWED_CIDRS, client);
  }
  return client;
}
