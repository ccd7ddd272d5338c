import type { RepresentationType, ResourceReference, SubjectReference } from "@gatehouse/proto";
import { AuthzClientError } from "./errors.js";

const NAME = /^[A-Za-z0-9_]+$/;

function name(what: string, value: string): string {
  if (!NAME.test(value)) throw new AuthzClientError("invalid-argument", `${what} '${value}' must match ${NAME.source}.`);
  return value;
}

function id(what: string, value: string): string {
  if (typeof value !== "string" || value.length === 0) throw new AuthzClientError("invalid-argument", `${what} must be a non-empty string.`);
  return value;
}

/** A resource of an application, e.g. `{ type: "host", reporter: "hbi", id }`. */
export interface ResourceInput {
  type: string;
  reporter: string;
  id: string;
}

/** A principal's user id (becomes `<domain>/<id>`) or a full subject reference. */
export type SubjectInput = string | SubjectReference;

export function resourceRef(input: ResourceInput): ResourceReference {
  return { resourceType: name("resource type", input.type), resourceId: id("resource id", input.id), reporter: { type: name("reporter type", input.reporter) } };
}

export function workspaceRef(workspaceId: string): ResourceReference {
  return resourceRef({ type: "workspace", reporter: "rbac", id: workspaceId });
}

/** Pattern 5's object: the tenant `<domain>/<org_id>`. */
export function tenantRef(domain: string, orgId: string): ResourceReference {
  return resourceRef({ type: "tenant", reporter: "rbac", id: `${domain}/${id("org id", orgId)}` });
}

export function representationType(type: string, reporter: string): RepresentationType {
  return { resourceType: name("resource type", type), reporterType: name("reporter type", reporter) };
}

/** `principal` `<domain>/<userId>` with reporter `rbac`, as the specification builds subjects. */
export function principalSubject(userId: string, domain = "redhat"): SubjectReference {
  if (userId.includes("/")) throw new AuthzClientError("invalid-argument", `user id '${userId}' must not contain '/' (the domain is added).`);
  return { resource: resourceRef({ type: "principal", reporter: "rbac", id: `${domain}/${id("user id", userId)}` }) };
}

export function subjectRef(subject: SubjectInput, domain: string): SubjectReference {
  if (typeof subject === "string") return principalSubject(subject, domain);
  if (!subject?.resource) throw new AuthzClientError("invalid-argument", "subject.resource is required.");
  return subject;
}
