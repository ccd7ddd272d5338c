import { isStoreError, type BindingResource, type BindingSubject, type Role } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { principalUuid } from "./principals.js";
import type { Services } from "./services.js";

/** Wire subject types: `user` on the wire is a `principal` in the store. */
export const toStoreSubjectType = (type: "group" | "user"): BindingSubject["type"] => (type === "user" ? "principal" : "group");
export const toWireSubjectType = (type: BindingSubject["type"]): "group" | "user" => (type === "principal" ? "user" : "group");

export interface RoleRef {
  id: string;
  name: string;
  created: string;
  modified: string;
}
export interface SubjectView {
  id: string;
  type: "group" | "user";
  group?: { name: string; description: string | null; user_count: number };
  user?: { username: string };
}
export interface ResourceView {
  id: string;
  type: string;
  name?: string | null;
}

/** Per-request memo of the records a binding view refers to (one lookup per id). */
export class BindingViews {
  private readonly roles = new Map<string, Promise<Role | null>>();
  private readonly subjects = new Map<string, Promise<SubjectView>>();
  private readonly names = new Map<string, Promise<string | null>>();

  constructor(
    private readonly services: Services,
    private readonly ctx: RequestContext,
    /** Whether group/user details and resource names are wanted (they cost lookups). */
    private readonly details: { subject: boolean; resourceName: boolean },
  ) {}

  role(id: string): Promise<Role | null> {
    let pending = this.roles.get(id);
    if (!pending) {
      pending = this.services.store.roles.get(this.ctx.tenant.orgId, id).catch((error: unknown) => {
        // Another tenant's role reads exactly as a nonexistent one (no existence oracle).
        if (isStoreError(error, "not-found") || isStoreError(error, "cross-tenant")) return null;
        throw error;
      });
      this.roles.set(id, pending);
    }
    return pending;
  }

  async roleRef(id: string): Promise<RoleRef> {
    const role = await this.role(id);
    return {
      id,
      name: role?.name ?? "",
      created: role?.created.toISOString() ?? "",
      modified: role?.modified.toISOString() ?? "",
    };
  }

  subject(subject: BindingSubject): Promise<SubjectView> {
    const key = `${subject.type}:${subject.id}`;
    let pending = this.subjects.get(key);
    if (!pending) {
      pending = this.loadSubject(subject);
      this.subjects.set(key, pending);
    }
    return pending;
  }

  private async loadSubject(subject: BindingSubject): Promise<SubjectView> {
    const orgId = this.ctx.tenant.orgId;
    // Users are shown by their principal UUID, as insights-rbac does.
    const id = subject.type === "principal" ? principalUuid(orgId, subject.id) : subject.id;
    const view: SubjectView = { id, type: toWireSubjectType(subject.type) };
    if (!this.details.subject) return view;
    if (subject.type === "group") {
      const group = await this.services.store.groups.get(orgId, subject.id).catch(() => null);
      if (group) {
        const members = await this.services.store.groups.members(orgId, subject.id);
        view.group = { name: group.name, description: group.description, user_count: members.length };
      }
    } else {
      const principal = await this.services.store.principals.get(orgId, subject.id).catch(() => null);
      if (principal) view.user = { username: principal.username };
    }
    return view;
  }

  async resource(resource: BindingResource): Promise<ResourceView> {
    const view: ResourceView = { id: resource.id, type: resource.type };
    if (!this.details.resourceName) return view;
    if (resource.type === "tenant") return { ...view, name: "Organization" };
    let pending = this.names.get(resource.id);
    if (!pending) {
      pending = this.services.store.workspaces
        .get(this.ctx.tenant.orgId, resource.id)
        .then((ws) => ws.name)
        .catch(() => null);
      this.names.set(resource.id, pending);
    }
    return { ...view, name: await pending };
  }
}
