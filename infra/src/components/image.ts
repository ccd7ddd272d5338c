import type { GatehouseConfig, ServiceName } from "../config.js";

/** `<registry>/<service>:<tag>`; the tag comes from the stack (or a per-service override). */
export function imageFor(cfg: GatehouseConfig, service: ServiceName): string {
  return `${cfg.imageRegistry}/${service}:${cfg.services[service].imageTag}`;
}
