import type { Consistency, ResourceReference } from "@gatehouse/proto";
import { type AuthzClientConfig, loadClientConfig, validateClientConfig } from "./config.js";
import { AuthzClientError } from "./errors.js";
import { createTokenProvider } from "./oauth.js";
import { type ResourceInput, type SubjectInput, representationType, resourceRef, subjectRef, tenantRef, workspaceRef } from "./references.js";
import { type CheckTransport, createGrpcTransport } from "./transport.js";
import { type WorkspaceFilter, workspaceFilter } from "./workspace-filter.js";
import { type WorkspaceResolver, createWorkspaceResolver } from "./workspaces.js";

/** read → Check; write and sensitive reads (credentials, secrets) → CheckForUpdate (fully consistent). */
export type Access = "read" | "write" | "sensitive-read";

const RPC_FOR_ACCESS: Record<Access, "check" | "checkForUpdate"> = {
  read: "check",
  write: "checkForUpdate",
  "sensitive-read": "checkForUpdate",
};

/** Freshness of reads: a token from a write makes the answer at least as fresh as that write. */
export type ConsistencyInput = { atLeastAsFresh: string } | "minimize-latency";

interface CommonCheck {
  permission: string;
  subject: SubjectInput;
  access?: Access;
  /** Only for `access: "read"` (CheckForUpdate is always fully consistent). */
  consistency?: ConsistencyInput;
}

export interface ResourceCheck extends CommonCheck {
  resource: ResourceInput;
}
export interface OrgCheck extends CommonCheck {
  orgId: string;
}
/** One item of a listing, with the consistency token the server answered it at. */
export interface ListedResource {
  id: string;
  consistencyToken?: string;
}

export interface ListInput {
  permission: string;
  subject: SubjectInput;
  consistency?: ConsistencyInput;
}

/** The organisation-level check objects of Patterns 3–5 (the specification's translation table). */
type OrgPattern = "default-workspace" | "root-workspace" | "tenant";

export interface AuthzClient {
  /** false when AUTHZ_ENABLED=false: every helper then rejects with `authz-disabled`. */
  readonly enabled: boolean;
  /** Pattern 1: the specific resource is the object. */
  checkResource(input: ResourceCheck): Promise<boolean>;
  /**
   * Pattern 1 list: every resource of a type the subject holds the permission on, streamed page by
   * page as the server sends it (nothing is buffered; stopping the loop cancels the stream).
   */
  listResources(input: ListInput & { type: string; reporter: string }): AsyncIterable<ListedResource>;
  /** Pattern 2: workspace ids for the contingent relation, as a filter for the app's own query. */
  listWorkspaceIds(input: ListInput): Promise<WorkspaceFilter>;
  /** Pattern 3: the organisation's Default Workspace is the object. */
  checkDefaultWorkspace(input: OrgCheck): Promise<boolean>;
  /** Pattern 4: the organisation's Root Workspace is the object. */
  checkRootWorkspace(input: OrgCheck): Promise<boolean>;
  /** Pattern 5: the tenant `<domain>/<org_id>` is the object. */
  checkTenant(input: OrgCheck): Promise<boolean>;
  rootWorkspaceId(orgId: string): Promise<string>;
  defaultWorkspaceId(orgId: string): Promise<string>;
  close(): void;
}

export interface AuthzClientDeps {
  /** Replaces the gRPC transport (tests of request translation). */
  transport?: CheckTransport;
  /** The clock (epoch ms) the service token's refresh is timed by (default `Date.now`; tests move their own). */
  now?: () => number;
}

const LIST_PAGE_SIZE = 1000;
const MAX_PAGES = 10_000; // a server that never ends the listing must not hang the caller forever

function consistencyOf(input: ConsistencyInput | undefined): Consistency | undefined {
  if (input === undefined) return undefined;
  if (input === "minimize-latency") return { minimizeLatency: true };
  if (!input.atLeastAsFresh) throw new AuthzClientError("invalid-argument", "consistency.atLeastAsFresh must be a non-empty token.");
  return { atLeastAsFresh: { token: input.atLeastAsFresh } };
}

function permissionOf(permission: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(permission ?? "")) throw new AuthzClientError("invalid-argument", `permission '${permission}' must match ^[A-Za-z0-9_]+$.`);
  return permission;
}

function disabledClient(): AuthzClient {
  const disabled = () => new AuthzClientError("authz-disabled", "Authorization is disabled (AUTHZ_ENABLED=false); no check was made.");
  const refuse = () => Promise.reject(disabled());
  return {
    enabled: false,
    checkResource: refuse,
    // biome-ignore lint/correctness/useYield: a disabled client's listing fails on the first next(), as an enabled one's would.
    listResources: async function* () {
      throw disabled();
    },
    listWorkspaceIds: refuse,
    checkDefaultWorkspace: refuse,
    checkRootWorkspace: refuse,
    checkTenant: refuse,
    rootWorkspaceId: refuse,
    defaultWorkspaceId: refuse,
    close() {},
  };
}

/** Builds the SDK from a config, or from the `AUTHZ_*` environment when none is given. */
export function createAuthzClient(config: AuthzClientConfig = loadClientConfig(), deps: AuthzClientDeps = {}): AuthzClient {
  const checked = validateClientConfig(config);
  if (!checked.enabled) return disabledClient();
  const domain = checked.domain ?? "redhat";
  const timeoutMs = checked.timeoutMs ?? 5_000;
  const tokens = checked.auth.enabled
    ? createTokenProvider({ issuerUrl: checked.auth.oidcIssuer, clientId: checked.auth.clientId, clientSecret: checked.auth.clientSecret, timeoutMs, ...(deps.now ? { now: deps.now } : {}) })
    : undefined;
  const transport = deps.transport ?? createGrpcTransport({ target: checked.url, insecure: checked.insecure, tokens, timeoutMs });
  const resolver: WorkspaceResolver | undefined = checked.workspaceUrl ? createWorkspaceResolver({ baseUrl: checked.workspaceUrl, tokens, timeoutMs }) : undefined;
  const requireResolver = (): WorkspaceResolver => {
    if (!resolver) throw new AuthzClientError("invalid-config", "AUTHZ_WORKSPACE_URL is required for root/default workspace lookups (Patterns 3 and 4).");
    return resolver;
  };

  const OBJECT_FOR: Record<OrgPattern, (orgId: string) => Promise<ResourceReference>> = {
    "default-workspace": async (orgId) => workspaceRef(await requireResolver().defaultWorkspaceId(orgId)),
    "root-workspace": async (orgId) => workspaceRef(await requireResolver().rootWorkspaceId(orgId)),
    tenant: async (orgId) => tenantRef(domain, orgId),
  };

  async function check(object: ResourceReference, input: CommonCheck): Promise<boolean> {
    const access = input.access ?? "read";
    const rpc = RPC_FOR_ACCESS[access];
    if (!rpc) throw new AuthzClientError("invalid-argument", `access must be read, write or sensitive-read, got '${String(access)}'.`);
    const base = { object, relation: permissionOf(input.permission), subject: subjectRef(input.subject, domain) };
    if (rpc === "checkForUpdate") {
      if (input.consistency !== undefined) throw new AuthzClientError("invalid-argument", "consistency applies to reads only; writes are always fully consistent.");
      return (await transport.checkForUpdate(base)).allowed;
    }
    return (await transport.check({ ...base, consistency: consistencyOf(input.consistency) })).allowed;
  }

  const orgCheck = (pattern: OrgPattern) => async (input: OrgCheck) => check(await OBJECT_FOR[pattern](input.orgId), input);

  /**
   * Pages through StreamedListObjects the way the official SDK does (until an empty page or a
   * missing continuation token), with loop protection. Items are yielded as they arrive.
   */
  async function* listItems(type: string, reporter: string, input: ListInput): AsyncGenerator<ListedResource> {
    const request = {
      objectType: representationType(type, reporter),
      relation: permissionOf(input.permission),
      subject: subjectRef(input.subject, domain),
      consistency: consistencyOf(input.consistency),
    };
    let continuationToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      let count = 0;
      let next: string | undefined;
      for await (const item of transport.listObjects({ ...request, pagination: { limit: LIST_PAGE_SIZE, continuationToken } })) {
        count++;
        next = item.pagination?.continuationToken || undefined;
        const id = item.object?.resourceId;
        if (id) yield { id, ...(item.consistencyToken?.token ? { consistencyToken: item.consistencyToken.token } : {}) };
      }
      if (count === 0 || !next) return;
      if (next === continuationToken) throw new AuthzClientError("invalid-response", "StreamedListObjects repeated a continuation token.");
      continuationToken = next;
    }
    throw new AuthzClientError("invalid-response", `StreamedListObjects did not finish within ${MAX_PAGES} pages.`);
  }

  /** Pattern 2 needs the whole set (it becomes one SQL parameter); the newest token is kept. */
  async function workspaceIds(input: ListInput): Promise<WorkspaceFilter> {
    const ids: string[] = [];
    let consistencyToken: string | undefined;
    for await (const item of listItems("workspace", "rbac", input)) {
      ids.push(item.id);
      consistencyToken = item.consistencyToken ?? consistencyToken;
    }
    return workspaceFilter(ids, consistencyToken);
  }

  return {
    enabled: true,
    checkResource: async (input) => check(resourceRef(input.resource), input),
    listResources: (input) => listItems(input.type, input.reporter, input),
    listWorkspaceIds: workspaceIds,
    checkDefaultWorkspace: orgCheck("default-workspace"),
    checkRootWorkspace: orgCheck("root-workspace"),
    checkTenant: orgCheck("tenant"),
    rootWorkspaceId: async (orgId) => requireResolver().rootWorkspaceId(orgId),
    defaultWorkspaceId: async (orgId) => requireResolver().defaultWorkspaceId(orgId),
    close: () => transport.close(),
  };
}
