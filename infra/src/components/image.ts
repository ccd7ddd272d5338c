import type { GatehouseConfig, ServiceName } from "../config.js";

/**
 * `<registry>/<service>@sha256:…` when the stack names the build's digest (always in prod: a tag can
 * be pushed again with other contents), else `<registry>/<service>:<tag>`.
 */
export function imageFor(cfg: GatehouseConfig, service: ServiceName): string {
  const digest = cfg.imageDigests[service];
  return digest ? `${cfg.imageRegistry}/${service}@${digest}` : `${cfg.imageRegistry}/${service}:${cfg.services[service].imageTag}`;
}
