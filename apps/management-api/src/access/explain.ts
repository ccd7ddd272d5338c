import { explain, lookupResources, type ExplainNode, type ObjectRef, type Relationship, type RelationshipGraph, type SubjectRef } from "@gatehouse/evaluator";
import { roleGrants, type BindingLevel } from "@gatehouse/rbac";
import { isStoreError } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { invalid, isMissing, notFound } from "../domain/errors.js";
import { checkResource, requireSubject } from "../commands/binding-access.js";
import { graphReady, type Services } from "../commands/services.js";
import type { ExplainBody } from "../schemas/access.js";
import { levelLabel, type CheckablePermission, type PermissionIndex } from "./catalogue.js";
import { planFixes, type ExplainFix, type FixTarget } from "./fix.js";

/** Most grants (role bindings) one answer lists; the evaluator bounds its own tree (500 nodes). */
export const EXPLAIN_MAX_GRANTS = 20;
/** Most "held elsewhere" workspaces named in a denial. */
const MAX_HELD_ELSEWHERE = 5;

export interface NamedRef {
  type: string;
  id: string;
  name: string | null;
}

export interface ExplainGrant {
  /** The permission (or contingent part of it) this binding grants. */
  grants: string;
  binding_id: string;
  role: NamedRef;
  /** Where the binding is attached. */
  bound_at: NamedRef;
  /** The group the subject holds it through; null when bound to the user directly. */
  via_group: NamedRef | null;
  /** From the bound resource down to the target, both included (inheritance). */
  inherited_through: NamedRef[];
}

export interface ExplainSuggestion {
  permission: string;
  role: NamedRef;
  resource: NamedRef;
  subject: NamedRef;
}

export interface ExplainResult {
  allowed: boolean;
  revision: number;
  consistency_token: string;
  subject: NamedRef;
  resource: NamedRef;
  permission: {
    name: string;
    v1: string[];
    pattern: number | null;
    pattern_name: string | null;
    checked_at: BindingLevel | null;
    checked_at_label: string | null;
  };
  /** The level of the target itself (tenant, root, default) or null for other workspaces and hosts. */
  target_level: BindingLevel | null;
  grants: ExplainGrant[];
  summary: string;
  /** The evaluator's one-line summary. */
  evaluator_summary: string;
  suggestions: ExplainSuggestion[];
  /** For a denial: the narrowest binding(s) that would grant it, with their preview and API calls. */
  fixes: ExplainFix[];
  tree: ExplainNode;
}

interface Target {
  ref: ObjectRef;
  named: NamedRef;
  /** Workspace chain from root down to the target's workspace (hosts: the host's workspace). */
  chain: NamedRef[];
  level: BindingLevel | null;
}

async function resolveTarget(services: Services, ctx: RequestContext, body: ExplainBody["resource"]): Promise<Target> {
  const { store } = services;
  const org = ctx.tenant.orgId;
  const tenantRef: NamedRef = { type: "tenant", id: ctx.tenant.tenantId, name: `Organization ${org}` };
  const workspaceChain = async (workspaceId: string): Promise<NamedRef[]> => {
    const ws = await store.workspaces.get(org, workspaceId);
    const ancestors = await store.workspaces.ancestry(org, workspaceId);
    return [...ancestors.reverse().map((a) => ({ type: "workspace", id: a.id, name: a.name })), { type: "workspace", id: ws.id, name: ws.name }];
  };
  if (body.type === "tenant") {
    if (body.id !== undefined && body.id !== ctx.tenant.tenantId && body.id !== org) throw notFound("Tenant not found.");
    return { ref: { type: "rbac/tenant", id: ctx.tenant.tenantId }, named: tenantRef, chain: [], level: "tenant" };
  }
  if (body.type === "workspace") {
    const { id } = await checkResource(services, ctx, { type: "workspace", id: body.id ?? "" }, "resource.id");
    const chain = await workspaceChain(id);
    const level: BindingLevel | null = id === ctx.tenant.rootWorkspaceId ? "root" : id === ctx.tenant.defaultWorkspaceId ? "default" : null;
    return { ref: { type: "rbac/workspace", id }, named: chain[chain.length - 1]!, chain, level };
  }
  const host = await store.hosts.get(org, body.id ?? "").catch((error: unknown) => {
    if (isMissing(error) || isStoreError(error, "invalid-argument")) {
      throw notFound("Host not found.", "resource.id");
    }
    throw error;
  });
  const chain = await workspaceChain(host.workspaceId);
  return { ref: { type: "hbi/host", id: host.id }, named: { type: "host", id: host.id, name: null }, chain, level: null };
}

interface Subject {
  ref: SubjectRef;
  named: NamedRef;
  groups: Set<string>;
  /** For a group: the membership tuple of a hypothetical member that holds nothing else. */
  member?: Relationship;
}

async function resolveSubject(services: Services, ctx: RequestContext, body: ExplainBody["subject"]): Promise<Subject> {
  const org = ctx.tenant.orgId;
  if (body.type === "group") {
    const { id } = await requireSubject(services, ctx, { type: "group", id: body.id }, "subject.id");
    const group = await services.store.groups.get(org, id);
    // Roles grant their permissions to principals (`rbac/principal:*`), never to a group subject set,
    // so a group is explained through a hypothetical member whose only membership is this group.
    const memberId = `${services.store.domain}/gatehouse|group-member|${id}`;
    return {
      ref: { type: "rbac/principal", id: memberId },
      named: { type: "group", id, name: group.name },
      groups: new Set([id]),
      member: { resourceType: "rbac/group", resourceId: id, relation: "t_member", subjectType: "rbac/principal", subjectId: memberId },
    };
  }
  await requireSubject(services, ctx, { type: "principal", id: body.id }, "subject.id");
  const principal = await services.store.principals.get(org, body.id);
  const groups = new Set(await services.store.groups.groupsOf(org, body.id));
  return {
    ref: { type: "rbac/principal", id: `${services.store.domain}/${principal.userId}` },
    named: { type: "user", id: principal.userId, name: principal.username },
    groups,
  };
}

const BINDING_LABEL = /^rbac\/role_binding:([^#]+)#(.+)$/;

/** (binding id, permission part) of every role binding on the granting branches of the tree. */
function grantingBindings(node: ExplainNode, out: Map<string, { bindingId: string; part: string }>): void {
  if (!node.allowed || out.size >= EXPLAIN_MAX_GRANTS) return;
  const match = BINDING_LABEL.exec(node.label);
  if (match && (node.kind === "permission" || node.kind === "relation")) {
    out.set(node.label, { bindingId: match[1]!, part: match[2]! });
    return;
  }
  for (const child of node.children) grantingBindings(child, out);
}

/** Permission names the tree needed but did not find (the failing sides of an intersection, or the whole permission). */
function missingParts(tree: ExplainNode, permission: string): string[] {
  const top = tree.children[0];
  if (top?.kind === "intersection") {
    const parts = top.children
      .filter((c) => !c.allowed)
      .map((c) => /#([^#]+)$/.exec(c.label)?.[1] ?? "")
      .filter((p) => p !== "");
    if (parts.length > 0) return [...new Set(parts)];
  }
  return [permission];
}

/**
 * Runs `fn` with a hypothetical membership tuple in the graph. Synchronous from add to remove, so
 * no other request (or change-feed batch) ever sees it.
 */
function withMember<T>(graph: RelationshipGraph, member: Relationship | undefined, fn: () => T): T {
  if (!member) return fn();
  const added = graph.add(member);
  try {
    return fn();
  } finally {
    if (added) graph.remove(member);
  }
}

/** "the Default Workspace", "the Production workspace". */
function workspacePhrase(name: string): string {
  return /workspace$/i.test(name) ? `the ${name}` : `the ${name} workspace`;
}

function describeList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/**
 * Explains one access decision in the caller's organisation: allowed or not at the authorization
 * graph's current revision, the role bindings that grant it (and how they are inherited down to
 * the target), or for a denial where the subject does hold it and which binding would grant it.
 */
export async function explainAccess(services: Services, index: PermissionIndex, ctx: RequestContext, body: ExplainBody): Promise<ExplainResult> {
  const entry: CheckablePermission | undefined = index.find(body.permission);
  if (!entry) throw invalid(`Unknown permission '${body.permission.slice(0, 128)}'.`, "permission");
  const [target, subject] = await Promise.all([resolveTarget(services, ctx, body.resource), resolveSubject(services, ctx, body.subject)]);
  const { model } = services.authz.graph;
  if (!model.isPermission(target.ref.type, entry.name) && !model.isRelation(target.ref.type, entry.name)) {
    throw invalid(`Permission '${entry.name}' is not defined on ${body.resource.type} resources.`, "permission");
  }
  await graphReady(services, ctx);
  const graph = services.authz.graph;
  const revision = services.authz.revision;
  const { explanation, heldOn } = withMember(graph, subject.member, () => {
    const now = services.authz.now();
    const explanation = explain(graph, target.ref, entry.name, subject.ref, { now });
    return { explanation, heldOn: explanation.allowed ? new Set<string>() : new Set(lookupResources(graph, "rbac/workspace", entry.name, subject.ref, { now })) };
  });
  const org = ctx.tenant.orgId;

  const workspaceName = new Map<string, string>();
  for (const ws of target.chain) workspaceName.set(ws.id, ws.name ?? ws.id);
  const resourceRef = (type: string, id: string): NamedRef => (type === "tenant" ? { type, id, name: `Organization ${org}` } : { type, id, name: workspaceName.get(id) ?? null });

  const grants: ExplainGrant[] = [];
  const found = new Map<string, { bindingId: string; part: string }>();
  grantingBindings(explanation.tree, found);
  // One query for the bindings (they sit on the target or above it), one for their roles.
  const bindingResource = target.ref.type === "rbac/tenant" ? { type: "tenant" as const, id: ctx.tenant.tenantId } : { type: "workspace" as const, id: target.chain[target.chain.length - 1]!.id };
  // A v1 role's organisation-level part (not a binding row) is named as its role bound there.
  const bindings = found.size === 0 ? [] : (await services.store.roleBindings.list(org, { resource: bindingResource, includeInherited: true, includeV1Parts: true, limit: -1 })).data;
  const bindingById = new Map(bindings.map((b) => [b.id, b]));
  const roleIds = [...new Set([...found.values()].flatMap(({ bindingId }) => bindingById.get(bindingId)?.roleId ?? []))];
  const roles = roleIds.length === 0 ? [] : (await services.store.roles.list(org, { ids: roleIds, limit: -1 })).data;
  const roleById = new Map(roles.map((r) => [r.id, r]));
  const groupNames = new Map<string, string | null>();
  for (const { bindingId, part } of found.values()) {
    const binding = bindingById.get(bindingId);
    if (!binding) continue;
    const role = roleById.get(binding.roleId);
    const viaGroup = binding.subjects.find((s) => s.type === "group" && subject.groups.has(s.id));
    if (viaGroup && !groupNames.has(viaGroup.id)) groupNames.set(viaGroup.id, (await services.store.groups.get(org, viaGroup.id).catch(() => undefined))?.name ?? null);
    const boundAt = resourceRef(binding.resource.type, binding.resource.id);
    const fromIndex = binding.resource.type === "tenant" ? 0 : target.chain.findIndex((w) => w.id === binding.resource.id);
    const inherited = binding.resource.type === "tenant" ? [boundAt, ...target.chain] : target.chain.slice(Math.max(fromIndex, 0));
    if (target.ref.type === "hbi/host") inherited.push(target.named);
    grants.push({
      grants: part,
      binding_id: binding.id,
      role: { type: "role", id: binding.roleId, name: role?.displayName ?? role?.name ?? null },
      bound_at: boundAt,
      via_group: viaGroup ? { type: "group", id: viaGroup.id, name: groupNames.get(viaGroup.id) ?? null } : null,
      inherited_through: inherited,
    });
  }

  let summary: string;
  const suggestions: ExplainSuggestion[] = [];
  const fixes: ExplainFix[] = [];
  const checkedAt = entry.checkedAt ? levelLabel(entry.checkedAt) : null;
  if (explanation.allowed) {
    const first = grants[0];
    summary = first
      ? `${subject.named.name ?? subject.named.id} holds ${entry.name} on ${target.named.name ?? target.named.id}: ${grants
          .map((g) => `${g.grants} from ${g.role.name ?? g.role.id} bound at ${g.bound_at.name ?? g.bound_at.id}${g.via_group ? ` to ${g.via_group.name ?? g.via_group.id}` : ""}`)
          .join("; ")}.`
      : explanation.summary;
  } else {
    const reasons: string[] = [];
    const targetName = target.named.name ?? target.named.id;
    if (heldOn.size > 0) {
      // The top-most workspaces holding it are where the binding reaches from.
      const held = (await services.store.workspaces.list(org, { ids: [...heldOn].slice(0, 1000), limit: -1 })).data;
      const top = held.filter((w) => !w.parentId || !heldOn.has(w.parentId)).slice(0, MAX_HELD_ELSEWHERE);
      reasons.push(`bound at ${describeList(top.map((w) => workspacePhrase(w.name)))}`);
      reasons.push(
        `grants inherit downward only, so ${top.length > 1 ? "these bindings do" : "that binding does"} not reach ${target.named.type === "workspace" ? workspacePhrase(targetName) : `${target.named.type} ${targetName}`}`,
      );
    } else {
      reasons.push(`no role binding grants ${entry.name} to ${subject.named.type === "group" ? "members of " : ""}${subject.named.name ?? subject.named.id} anywhere in the organisation`);
    }
    reasons.push(checkLevelPhrase(entry, target));
    const missing = missingParts(explanation.tree, entry.name);
    if (missing.length > 0 && missing[0] !== entry.name) reasons.push(`missing ${describeList(missing)}`);
    const bindAt = await fixTarget(services, ctx, entry, target);
    fixes.push(...(await planFixes(services, index, ctx, { named: subject.named, userId: subject.named.type === "user" ? subject.named.id : null, groups: subject.groups }, bindAt, missing)));
    for (const fix of fixes) {
      suggestions.push({ permission: fix.permission, role: fix.role ?? { type: "role", id: "", name: fix.new_role?.name ?? null }, resource: fix.resource, subject: fix.subject });
    }
    const unfixed = missing.filter((part) => !fixes.some((f) => f.permission === part));
    if (unfixed.length > 0) {
      const roles = (await services.store.roles.list(org, { kinds: ["custom", "seeded"], limit: -1 })).data;
      const carrying = roles.filter((r) => unfixed.some((part) => index.v1For(part).some((p) => roleGrants(r.permissions, p))));
      if (carrying.length > 0) {
        reasons.push(
          `no role carrying ${describeList(unfixed)} can be bound at ${bindAt.resource.type === "tenant" ? "the organisation" : workspacePhrase(bindAt.resource.name ?? bindAt.resource.id)}: such roles are scoped to ${describeList([...new Set(carrying.map((r) => levelLabel(r.scope)))])}`,
        );
      }
    }
    summary = `${reasons.join("; ")}.`;
  }

  return {
    allowed: explanation.allowed,
    revision,
    consistency_token: services.store.tokens.encode(revision),
    subject: subject.named,
    resource: target.named,
    permission: {
      name: entry.name,
      v1: entry.v1,
      pattern: entry.pattern,
      pattern_name: entry.patternName,
      checked_at: entry.checkedAt,
      checked_at_label: checkedAt && entry.pattern !== null && entry.pattern <= 2 ? "resource's own workspace" : checkedAt,
    },
    target_level: target.level,
    grants,
    summary,
    evaluator_summary: explanation.summary,
    suggestions,
    fixes,
    tree: explanation.tree,
  };
}

/** Patterns 1 and 2 check the asset (or its workspace) itself; 3 to 5 check one fixed object of the organisation. */
const checksResourceItself = (entry: CheckablePermission): boolean => entry.pattern === null || entry.pattern <= 2;

/** Where the application checks, said against the target asked about. */
function checkLevelPhrase(entry: CheckablePermission, target: Target): string {
  const targetName = target.named.name ?? target.named.id;
  if (checksResourceItself(entry)) {
    if (entry.pattern === null) return "this permission's application is not classified, so where it checks is unknown";
    return `this application checks each resource in its own workspace (here ${target.named.type === "workspace" ? workspacePhrase(targetName) : `${target.named.type} ${targetName}`}), so a binding must be there or above it`;
  }
  const level = entry.checkedAt!;
  const at = `this application checks at the ${levelLabel(level)}`;
  return target.level === level ? at : `${at}, not at ${target.named.type === "workspace" ? workspacePhrase(targetName) : `${target.named.type} ${targetName}`}`;
}

/** Where a fixing binding goes: the level the application checks (Patterns 3-5), else the target's workspace. */
async function fixTarget(services: Services, ctx: RequestContext, entry: CheckablePermission, target: Target): Promise<FixTarget> {
  if (!checksResourceItself(entry) && entry.checkedAt) {
    const level = entry.checkedAt;
    if (level === "tenant") return { level, resource: { type: "tenant", id: ctx.tenant.tenantId, name: `Organization ${ctx.tenant.orgId}` } };
    const id = level === "root" ? ctx.tenant.rootWorkspaceId : ctx.tenant.defaultWorkspaceId;
    const ws = await services.store.workspaces.get(ctx.tenant.orgId, id);
    return { level, resource: { type: "workspace", id, name: ws.name } };
  }
  const resource = target.named.type === "host" ? target.chain[target.chain.length - 1]! : target.named;
  return { level: target.level ?? "default", resource };
}
