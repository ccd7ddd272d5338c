// What the engine benchmarks share: a tenant whose user may view every host, and helper processes.
import { fork, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CheckRequest } from "@gatehouse/proto";
import { openStore, type Relationship, type Store } from "@gatehouse/store";

const here = dirname(fileURLToPath(import.meta.url));

export const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string): Relationship => ({
  resourceType,
  resourceId,
  relation,
  subjectType,
  subjectId,
});

/**
 * Bootstraps `orgId` and lets `redhat/<user>` view every host in `hostIds` (all in the default
 * workspace, granted through one role binding there). Returns the default workspace's id.
 */
export async function seedReadableHosts(store: Store, orgId: string, user: string, hostIds: string[]): Promise<string> {
  const ws = (await store.tenants.bootstrap(orgId)).value.defaultWorkspaceId;
  await store.relationships.write(orgId, {
    touch: [
      rel("rbac/role", `${orgId}-role`, "t_inventory_hosts_read", "rbac/principal", "*"),
      rel("rbac/role_binding", `${orgId}-binding`, "t_role", "rbac/role", `${orgId}-role`),
      rel("rbac/role_binding", `${orgId}-binding`, "t_subject", "rbac/principal", `redhat/${user}`),
      rel("rbac/workspace", ws, "t_binding", "rbac/role_binding", `${orgId}-binding`),
      ...hostIds.map((id) => rel("hbi/host", id, "t_workspace", "rbac/workspace", ws)),
    ],
  });
  return ws;
}

/** A bench helper (`client.ts`, `collector.ts`) in a child process, so its CPU is not the server's. */
export function forkHelper(file: string): ChildProcess {
  return fork(join(here, file), { execArgv: ["--import", "tsx", "--conditions=source"], stdio: "inherit" });
}

/** Sends a job to a helper and resolves with its answer (`{ok, result}` or `{ok: false, error}`). */
export function ask<T>(helper: ChildProcess, job: object): Promise<T> {
  return new Promise((resolve, reject) => {
    helper.once("message", (m: { ok: boolean; result?: T; error?: string }) => (m.ok ? resolve(m.result!) : reject(new Error(m.error))));
    helper.send(job);
  });
}

/** An embedded store where `redhat/bench-user` of `bench-org` may view hosts host-0..host-999. */
export async function openCheckBenchStore(): Promise<Store> {
  const store = await openStore({ pollIntervalMs: 1000 });
  await seedReadableHosts(
    store,
    "bench-org",
    "bench-user",
    Array.from({ length: 1000 }, (_, i) => `host-${i}`),
  );
  return store;
}

/** The Check the per-call benchmarks ask (allowed, through the role binding above). */
export const BENCH_CHECK: CheckRequest = {
  object: { resourceType: "host", resourceId: "host-42", reporter: { type: "hbi" } },
  relation: "view",
  subject: { resource: { resourceType: "principal", resourceId: "redhat/bench-user", reporter: { type: "rbac" } } },
};
