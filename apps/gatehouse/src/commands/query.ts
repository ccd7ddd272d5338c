import type { Command } from "commander";
import { credentials, Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceClient, type ResourceReference, type SubjectReference } from "@gatehouse/proto";

/** `type/name:id` (e.g. `rbac/workspace:<uuid>`, `hbi/host:<id>`) → a Kessel resource reference. */
export function parseObject(text: string): ResourceReference {
  const match = /^([A-Za-z0-9_]+)\/([A-Za-z0-9_]+):(.+)$/.exec(text);
  if (!match) throw new QueryInputError(`'${text}' is not '<reporter>/<type>:<id>' (e.g. rbac/workspace:1234 or hbi/host:abc)`);
  return { resourceType: match[2]!, resourceId: match[3]!, reporter: { type: match[1]! } };
}

function principal(userId: string, domain: string): SubjectReference {
  const id = userId.includes("/") ? userId : `${domain}/${userId}`;
  return { resource: { resourceType: "principal", resourceId: id, reporter: { type: "rbac" } } };
}

export class QueryInputError extends Error {
  override readonly name = "QueryInputError";
}

interface QueryFlags {
  target: string;
  relation: string;
  subject: string;
  domain: string;
  forUpdate?: boolean;
  json?: boolean;
}

function client(target: string): KesselInventoryServiceClient {
  return new KesselInventoryServiceClient(target, credentials.createInsecure());
}

const DEADLINE_SECONDS = 10;
const deadline = (): Date => new Date(Date.now() + DEADLINE_SECONDS * 1000);

/** A failed call as one whole sentence a person can act on (grpc-js's own message is long and cut off). */
export class EngineCallError extends Error {
  override readonly name = "EngineCallError";
}

export function describeCallError(error: unknown, target: string): Error {
  const e = error as Partial<ServiceError>;
  if (typeof e.code !== "number") return error instanceof Error ? error : new Error(String(error));
  const cause = /\b(E[A-Z]{4,})\b/.exec(e.details ?? "")?.[1];
  if (e.code === status.UNAVAILABLE) {
    return new EngineCallError(`cannot reach the authz-engine at ${target}${cause ? ` (${cause})` : ""}: is it running? Start it with 'pnpm start', or pass --target <host:port>.`);
  }
  if (e.code === status.DEADLINE_EXCEEDED) return new EngineCallError(`the authz-engine at ${target} did not answer within ${DEADLINE_SECONDS} s.`);
  const name = Object.entries(status).find(([, v]) => v === e.code)?.[0] ?? String(e.code);
  return new EngineCallError(`the authz-engine at ${target} refused the call: ${name}: ${(e.details ?? "").slice(0, 300)}`);
}

/**
 * The relation every object of a type has from the moment it exists (a workspace's parent, a host's
 * workspace), exposed as a permission of the same name: an object with none of these subjects
 * appears in no relationship, so the engine does not know it.
 */
const EXISTENCE: Readonly<Record<string, { relation: string; subjectTypes: readonly string[] }>> = {
  "rbac/workspace": { relation: "parent", subjectTypes: ["rbac/workspace", "rbac/tenant"] },
  "hbi/host": { relation: "workspace", subjectTypes: ["rbac/workspace"] },
};

/**
 * Whether the engine knows the object (at least as fresh as `token`, the Check's answer): true or
 * false for the types in EXISTENCE, undefined for others (a denial then cannot say more). Asked
 * with StreamedListSubjects, so any Kessel inventory API can answer it.
 */
export async function objectKnown(c: KesselInventoryServiceClient, object: ResourceReference, token: string | undefined): Promise<boolean | undefined> {
  const rule = EXISTENCE[`${object.reporter?.type}/${object.resourceType}`];
  if (!rule) return undefined;
  for (const subjectType of rule.subjectTypes) {
    const [reporterType, resourceType] = subjectType.split("/") as [string, string];
    const stream = c.streamedListSubjects(
      {
        resource: object,
        relation: rule.relation,
        subjectType: { resourceType, reporterType },
        pagination: { limit: 1 },
        ...(token ? { consistency: { atLeastAsFresh: { token } } } : {}),
      },
      new Metadata(),
      { deadline: deadline() },
    );
    for await (const item of stream as AsyncIterable<{ subject?: unknown }>) {
      if (item.subject) {
        stream.cancel();
        return true;
      }
    }
  }
  return false;
}

export function registerQueryCommands(program: Command): void {
  program
    .command("check")
    .description("Ask the authz-engine whether a principal holds a relation on an object (gRPC Check / CheckForUpdate)")
    .requiredOption("--object <ref>", "object as <reporter>/<type>:<id>, e.g. rbac/workspace:<id> or hbi/host:<id>")
    .requiredOption("--relation <name>", "permission to check, e.g. inventory_host_view")
    .requiredOption("--subject <user>", "principal user id (the domain is added) or <domain>/<user_id>")
    .option("--target <host:port>", "authz-engine address", "127.0.0.1:9091")
    .option("--domain <domain>", "principal id domain", "redhat")
    .option("--for-update", "use CheckForUpdate (fully consistent)")
    .option("--json", "print the verdict as JSON: { allowed, subject, relation, object } (and known: false for an object the engine does not know)")
    .action(async (flags: QueryFlags & { object: string }) => {
      // Validate before opening a channel, so bad input leaves nothing open.
      const request = { object: parseObject(flags.object), relation: flags.relation, subject: principal(flags.subject, flags.domain) };
      const c = client(flags.target);
      try {
        const { allowed, consistencyToken } = await new Promise<{ allowed: Allowed; consistencyToken?: { token: string } | undefined }>((resolve, reject) => {
          const done = (error: Error | null, response?: { allowed: Allowed; consistencyToken?: { token: string } | undefined }): void => (error ? reject(error) : resolve(response!));
          if (flags.forUpdate) c.checkForUpdate(request, new Metadata(), { deadline: deadline() }, done);
          else c.check(request, new Metadata(), { deadline: deadline() }, done);
        }).catch((error: unknown) => {
          throw describeCallError(error, flags.target);
        });
        // Check answers DENIED for an object the engine does not know, as Kessel's does: a denial
        // asks (at least as fresh as the Check) whether the object exists, so it can say which.
        const known =
          allowed === Allowed.ALLOWED_TRUE
            ? true
            : await objectKnown(c, request.object, consistencyToken?.token).catch((error: unknown) => {
                throw describeCallError(error, flags.target);
              });
        const type = flags.object.split(":")[0];
        if (flags.json) {
          const result = { allowed: allowed === Allowed.ALLOWED_TRUE, subject: flags.subject, relation: flags.relation, object: flags.object, ...(known === false ? { known: false } : {}) };
          process.stdout.write(`${JSON.stringify(result)}\n`);
        } else if (known === false) {
          process.stdout.write(`DENIED  ${flags.subject} ${flags.relation} ${flags.object}: no such object\n`);
          process.stderr.write(
            `The authz-engine knows no ${type} with id '${request.object.resourceId}'. List what exists with: gatehouse list --type ${type} --relation ${flags.relation} --subject <user>\n`,
          );
        } else {
          process.stdout.write(`${allowed === Allowed.ALLOWED_TRUE ? "ALLOWED" : "DENIED"}  ${flags.subject} ${flags.relation} ${flags.object}\n`);
          if (known === undefined)
            process.stderr.write(`(DENIED also when no such object exists; list what exists with: gatehouse list --type ${type} --relation ${flags.relation} --subject <user>)\n`);
        }
        if (allowed !== Allowed.ALLOWED_TRUE) process.exitCode = 1;
      } finally {
        c.close();
      }
    });

  program
    .command("list")
    .description("List the objects of a type on which a principal holds a relation (gRPC StreamedListObjects, all pages)")
    .requiredOption("--type <type>", "object type as <reporter>/<type>, e.g. rbac/workspace or hbi/host")
    .requiredOption("--relation <name>", "permission, e.g. inventory_host_view")
    .requiredOption("--subject <user>", "principal user id (the domain is added) or <domain>/<user_id>")
    .option("--target <host:port>", "authz-engine address", "127.0.0.1:9091")
    .option("--domain <domain>", "principal id domain", "redhat")
    .option("--json", "print one JSON document { type, relation, subject, objects: [ids], count }, written as the pages arrive")
    .action(async (flags: QueryFlags & { type: string }) => {
      const [reporterType, resourceType] = flags.type.split("/");
      if (!reporterType || !resourceType) throw new QueryInputError(`'${flags.type}' is not '<reporter>/<type>'`);
      const c = client(flags.target);
      // Written by hand page by page rather than through one JSON.stringify, so millions of ids are never
      // held at once; opened after the first page arrives, so a failed call prints no partial document.
      const jsonHead = `{"type":${JSON.stringify(flags.type)},"relation":${JSON.stringify(flags.relation)},"subject":${JSON.stringify(flags.subject)},"objects":[`;
      try {
        let token: string | undefined;
        let total = 0;
        for (;;) {
          const page: string[] = [];
          let last: string | undefined;
          const stream = c.streamedListObjects(
            {
              objectType: { resourceType, reporterType },
              relation: flags.relation,
              subject: principal(flags.subject, flags.domain),
              pagination: { limit: 1000, ...(token ? { continuationToken: token } : {}) },
            },
            new Metadata(),
            { deadline: deadline() },
          );
          try {
            for await (const item of stream as AsyncIterable<{ object?: ResourceReference; pagination?: { continuationToken: string } }>) {
              if (item.object) page.push(item.object.resourceId);
              last = item.pagination?.continuationToken;
            }
          } catch (error) {
            throw describeCallError(error, flags.target);
          }
          if (flags.json) {
            if (total === 0) process.stdout.write(jsonHead);
            if (page.length > 0) process.stdout.write(`${total > 0 ? "," : ""}${page.map((id) => JSON.stringify(id)).join(",")}`);
          } else for (const id of page) process.stdout.write(`${reporterType}/${resourceType}:${id}\n`);
          total += page.length;
          if (page.length === 0 || !last) break;
          token = last;
        }
        if (flags.json) process.stdout.write(`],"count":${total}}\n`);
        else process.stderr.write(`${total} object(s)\n`);
      } finally {
        c.close();
      }
    });
}
