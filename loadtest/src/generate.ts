// Deterministic data generator: loads one organisation through the public interfaces (management
// API for roles, workspaces, principals, groups and bindings; gRPC ReportResource for hosts) and
// fills the application's host table. Resumable: finished steps are recorded in state.json, and
// named objects that exist already are looked up instead of created again.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Manifest } from "../shared/manifest.ts";
import {
  CUSTOM_ROLES,
  LEVEL_GROUPS,
  groupName,
  groupOfPrincipal,
  hostId,
  hostWorkspaceIndex,
  levelGroupOfPrincipal,
  measuredPrincipals,
  planStandardBindings,
  planWorkspaces,
  scaleOf,
  userId,
  type ScenarioFile,
} from "../shared/model.ts";
import { batchCreateBody, checkRequest, principalSubject, reportHostRequest } from "../shared/requests.ts";
import type { AppDb } from "./app-db.ts";
import { toStruct, type InventoryClient } from "./grpc-client.ts";
import { HttpCallError, listAll, type ManagementClient } from "./http-client.ts";
import { forEachLimited, type Progress } from "./pool.ts";

export interface GenerateOptions {
  scenarios: ScenarioFile;
  scaleName: string;
  dataDir: string;
  domain: string;
  http: ManagementClient;
  grpc: InventoryClient;
  appDb: AppDb;
  progress: Progress;
  log: (line: string) => void;
  /** ReportResource calls in flight. */
  concurrency: number;
  /**
   * Writes the principals and hosts straight into the store (a bulk import) instead of one request
   * each; the rest still goes through the public interfaces, which assign the ids the rows refer to.
   */
  bulk?: (data: BulkData) => Promise<void>;
}

/** What a bulk import writes: users (user id, username) and hosts placed in their workspaces. */
export interface BulkData {
  principals: { userId: string; username: string }[];
  hosts: { id: string; workspaceId: string }[];
}

type Step = "roles" | "workspaces" | "principals" | "groups" | "bindings" | "hosts" | "appTable";
interface State {
  scaleName: string;
  seed: number;
  done: Step[];
  principalsDone: number;
  hostsDone: number;
  manifest: Partial<Manifest>;
}

const V2 = "/api/rbac/v2";
const V1 = "/api/rbac/v1";
const CHECKPOINT_EVERY = 2000;

interface Named {
  id?: string;
  uuid?: string;
  name: string;
}

export async function generate(o: GenerateOptions): Promise<Manifest> {
  const scale = scaleOf(o.scenarios, o.scaleName);
  const seed = o.scenarios.seed;
  mkdirSync(o.dataDir, { recursive: true });
  const statePath = path.join(o.dataDir, "state.json");
  let state: State = { scaleName: o.scaleName, seed, done: [], principalsDone: 0, hostsDone: 0, manifest: {} };
  if (existsSync(statePath)) {
    const saved = JSON.parse(readFileSync(statePath, "utf8")) as State;
    if (saved.scaleName !== o.scaleName || saved.seed !== seed) {
      throw new Error(`${statePath} belongs to scale ${saved.scaleName}/seed ${saved.seed}; use another --data-dir or delete it`);
    }
    state = saved;
  }
  const save = (): void => writeFileSync(statePath, JSON.stringify(state));
  const m = state.manifest;
  const run = async (step: Step, body: () => Promise<void>): Promise<void> => {
    if (state.done.includes(step)) return;
    const t0 = performance.now();
    await body();
    o.log(`generate: ${step} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    state.done.push(step);
    save();
  };

  // The first request bootstraps the tenant (root and default workspaces).
  const first = async (type: string) => (await o.http.get<{ data: { id: string }[] }>(`${V2}/workspaces/?type=${type}`)).data[0]?.id;
  m.rootWorkspaceId = (await first("root")) ?? "";
  m.defaultWorkspaceId = (await first("default")) ?? "";
  if (!m.rootWorkspaceId || !m.defaultWorkspaceId) throw new Error("the management API returned no root or default workspace");
  Object.assign(m, { version: 1, scaleName: o.scaleName, seed, org: o.scenarios.org, domain: o.domain, tenantId: `${o.domain}/${o.scenarios.org}` });
  m.measured = measuredPrincipals(scale, o.scenarios.access.measuredSubjects);

  await run("roles", async () => {
    const roles = await listAll<Named>(o.http, `${V2}/roles/?limit=1000`);
    const byName = new Map(roles.map((r) => [r.name, r.id ?? ""]));
    const ensure = async (role: { name: string; permissions: readonly string[] }): Promise<string> => {
      const existing = byName.get(role.name);
      if (existing) return existing;
      const permissions = role.permissions.map((p) => {
        const [application, resource_type, operation] = p.split(":");
        return { application, resource_type, operation };
      });
      return (await o.http.post<{ id: string }>(`${V2}/roles/`, { name: role.name, description: "load test", permissions })).id;
    };
    // Scope is derived from the permissions: bind only roles whose scope matches the level.
    const pick = async (query: string, level: string): Promise<string> => {
      const scoped = (await listAll<Named>(o.http, `${V2}/roles/?limit=1000&${query}`)).filter((r) => r.name !== "Administrator");
      scoped.sort((a, b) => a.name.localeCompare(b.name));
      const role = scoped[0];
      if (!role?.id) throw new Error(`no ${level}-scoped role is available to bind`);
      return role.id;
    };
    m.roleIds = {
      contingent: await ensure(CUSTOM_ROLES.contingent),
      hostsOnly: await ensure(CUSTOM_ROLES.hostsOnly),
      tenant: await pick("resource_type=tenant", "tenant"),
      root: await pick(`resource_type=workspace&resource_id=${m.rootWorkspaceId}`, "root"),
    };
  });

  const plan = planWorkspaces(seed, scale.workspaces, o.scenarios.tree.maxDepth, o.scenarios.tree.topLevelShare);
  await run("workspaces", async () => {
    const existing = await listAll<Named>(o.http, `${V2}/workspaces/?type=standard&limit=1000`);
    const byName = new Map(existing.map((w) => [w.name, w.id ?? ""]));
    const ids: string[] = plan.map((w) => byName.get(w.name) ?? "");
    o.progress.start("workspaces", plan.length, ids.filter(Boolean).length);
    // Parents first: one depth level at a time, siblings concurrently.
    for (let depth = 1; depth <= o.scenarios.tree.maxDepth; depth++) {
      const level = plan.filter((w) => w.depth === depth && !ids[w.index]);
      await forEachLimited(0, level.length, 8, async (k) => {
        const w = level[k]!;
        const parentId = w.parent === -1 ? m.defaultWorkspaceId : ids[w.parent];
        const created = await o.http.post<{ id: string }>(`${V2}/workspaces/`, { name: w.name, description: "load test", parent_id: parentId });
        ids[w.index] = created.id;
        o.progress.increment();
      });
    }
    o.progress.stop();
    m.workspaceIds = ids;
  });

  const bulk = o.bulk;
  await run("principals", async () => {
    if (bulk) {
      // As the first request of each records it: the identity's user id as its username.
      await bulk({ principals: Array.from({ length: scale.principals }, (_, p) => ({ userId: userId(p), username: userId(p) })), hosts: [] });
      return;
    }
    // A principal exists once it has made a request; 403 is fine (the upsert precedes authorization).
    o.progress.start("principals", scale.principals, state.principalsDone);
    for (let from = state.principalsDone; from < scale.principals; from += CHECKPOINT_EVERY) {
      const to = Math.min(scale.principals, from + CHECKPOINT_EVERY);
      await forEachLimited(from, to, 16, async (p) => {
        await o.http
          .as(userId(p), false)
          .get(`${V2}/workspaces/?type=root&limit=1`)
          .catch((error: unknown) => {
            if (!(error instanceof HttpCallError && error.status === 403)) throw error;
          });
        o.progress.increment();
      });
      state.principalsDone = to;
      save();
    }
    o.progress.stop();
  });

  await run("groups", async () => {
    const existing = await listAll<Named>(o.http, `${V1}/groups/?limit=1000`);
    const byName = new Map(existing.map((g) => [g.name, g.uuid ?? ""]));
    const ensure = async (name: string): Promise<string> => byName.get(name) || (await o.http.post<{ uuid: string }>(`${V1}/groups/`, { name, description: "load test" })).uuid;
    const members = new Map<string, string[]>();
    const add = (name: string, user: string): void => {
      members.set(name, [...(members.get(name) ?? []), user]);
    };
    for (let p = 0; p < scale.principals; p++) {
      const level = levelGroupOfPrincipal(scale, p);
      add(level ? LEVEL_GROUPS[level] : groupName(groupOfPrincipal(scale, p)), userId(p));
    }
    const names = [...Array.from({ length: scale.groups }, (_, g) => groupName(g)), ...Object.values(LEVEL_GROUPS)];
    o.progress.start("groups", names.length);
    const ids = new Map<string, string>();
    await forEachLimited(0, names.length, 4, async (k) => {
      const name = names[k]!;
      const id = await ensure(name);
      ids.set(name, id);
      const users = members.get(name) ?? [];
      for (let i = 0; i < users.length; i += 1000) {
        const body = { principals: users.slice(i, i + 1000).map((u) => ({ user_id: u })) };
        // Adding members is idempotent: sent again once when a kept-alive connection closed under it.
        await o.http.post(`${V1}/groups/${id}/principals/`, body).catch((error: unknown) => {
          if (!(error instanceof Error && error.message.includes("UND_ERR_SOCKET"))) throw error;
          return o.http.post(`${V1}/groups/${id}/principals/`, body);
        });
      }
      o.progress.increment();
    });
    o.progress.stop();
    m.groupIds = Array.from({ length: scale.groups }, (_, g) => ids.get(groupName(g))!);
    m.levelGroupIds = { tenant: ids.get(LEVEL_GROUPS.tenant)!, root: ids.get(LEVEL_GROUPS.root)!, default: ids.get(LEVEL_GROUPS.default)! };
  });

  await run("bindings", async () => {
    const roles = m.roleIds!;
    const level = m.levelGroupIds!;
    const requests = [
      { resource: { id: m.tenantId!, type: "tenant" }, subject: { id: level.tenant, type: "group" }, role: { id: roles.tenant } },
      { resource: { id: m.rootWorkspaceId!, type: "workspace" }, subject: { id: level.root, type: "group" }, role: { id: roles.root } },
      ...batchCreateBody([{ workspaceId: m.defaultWorkspaceId!, groupId: level.default, roleId: roles.contingent }]).requests,
      ...batchCreateBody(
        planStandardBindings(seed, scale, o.scenarios.access.contingentBindingsPerGroup, o.scenarios.access.hostOnlyBindingsPerGroup).map((b) => ({
          workspaceId: m.workspaceIds![b.workspace]!,
          groupId: m.groupIds![b.group]!,
          roleId: roles[b.role],
        })),
      ).requests,
    ];
    o.progress.start("bindings", requests.length);
    for (let i = 0; i < requests.length; i += 100) {
      const chunk = requests.slice(i, i + 100);
      await o.http.post(`${V2}/role-bindings:batchCreate/`, { requests: chunk });
      o.progress.increment(chunk.length);
    }
    o.progress.stop();
  });

  await run("hosts", async () => {
    if (bulk) {
      const hosts = Array.from({ length: scale.hosts }, (_, h) => ({ id: hostId(h), workspaceId: m.workspaceIds![hostWorkspaceIndex(seed, h, scale.workspaces)]! }));
      await bulk({ principals: [], hosts });
      return;
    }
    o.progress.start("hosts", scale.hosts, state.hostsDone);
    for (let from = state.hostsDone; from < scale.hosts; from += CHECKPOINT_EVERY) {
      const to = Math.min(scale.hosts, from + CHECKPOINT_EVERY);
      await forEachLimited(from, to, o.concurrency, async (h) => {
        const ws = m.workspaceIds![hostWorkspaceIndex(seed, h, scale.workspaces)]!;
        const request = reportHostRequest(hostId(h), ws);
        await o.grpc.unary("ReportResource", { ...request, representations: { ...request.representations, common: toStruct(request.representations.common) } });
        o.progress.increment();
      });
      state.hostsDone = to;
      save();
    }
    o.progress.stop();
  });

  // Outside the resumable step: it also adds org_id to a table generated before that column existed.
  await o.appDb.ensureTable(o.scenarios.org);
  await run("appTable", async () => {
    o.progress.start("app table", scale.hosts);
    for (let from = 0; from < scale.hosts; from += 5000) {
      const rows = [];
      for (let h = from; h < Math.min(scale.hosts, from + 5000); h++) {
        rows.push({ id: hostId(h), workspaceId: m.workspaceIds![hostWorkspaceIndex(seed, h, scale.workspaces)]!, name: `host-${h}.example.com` });
      }
      await o.appDb.insertHosts(rows);
      o.progress.increment(rows.length);
    }
    o.progress.stop();
  });

  await o.appDb.analyze();
  // CheckForUpdate is evaluated fully consistent: it returns once the engine has applied every write.
  await o.grpc.unary("CheckForUpdate", checkRequest(hostId(0), o.scenarios.relations.contingent, principalSubject(o.domain, userId(0))));
  m.hostsLoaded = scale.hosts;
  save();
  const manifest = m as Manifest;
  writeFileSync(path.join(o.dataDir, "manifest.json"), JSON.stringify(manifest, null, 1));
  return manifest;
}
