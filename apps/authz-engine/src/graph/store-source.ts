import { openStore, type Change, type Store, type StoreConfig } from "@gatehouse/store";
import { sharedReads } from "./shared-reads.js";
import type { ChangeBatch, GraphSource, ResourceWriter } from "./source.js";

function batchOf(change: Change): ChangeBatch {
  return {
    revision: change.revision,
    committed: change.committed,
    kind: change.kind,
    changes: [...change.deleted.map((relationship) => ({ op: "remove" as const, relationship })), ...change.touched.map((relationship) => ({ op: "add" as const, relationship }))],
  };
}

/** Adapts a Store to the engine's read side (snapshot + change feed + tokens). */
export function storeGraphSource(store: Store): GraphSource {
  return {
    async snapshot(onBatch) {
      const snapshot = await store.feed.snapshot();
      for await (const batch of snapshot.batches) onBatch(batch);
      return { revision: snapshot.revision };
    },
    follow(fromRevision, onCommit, onTransientError, onTruncated) {
      return store.feed.follow(
        fromRevision,
        (changes) => {
          for (const change of changes) onCommit(batchOf(change));
        },
        { onError: onTransientError, ...(onTruncated ? { onTruncated } : {}) },
      );
    },
    // Concurrent CheckForUpdate calls share head reads (never one begun before they asked).
    headRevision: sharedReads(() => store.feed.headRevision()),
    prunedThrough: () => store.feed.prunedThrough(),
    activeSchema: async () => (await store.roleConfig.active())?.schemaZed,
    encodeToken: (revision) => store.tokens.encode(revision),
    decodeToken: (token) => store.tokens.decode(token),
  };
}

/** Adapts a Store to the engine's write side. */
export function storeResourceWriter(store: Store): ResourceWriter {
  return {
    async reportHost(orgId, hostId, workspaceId) {
      return (await store.hosts.report(orgId, hostId, workspaceId)).revision;
    },
    async deleteHost(orgId, hostId) {
      return (await store.hosts.delete(orgId, hostId)).revision;
    },
    async writeRelationships(orgId, write) {
      return (await store.relationships.write(orgId, write)).revision;
    },
    async holdPlacement(resource, workspaceId, reporterOrg, foreignWorkspace) {
      const written = await store.placements.hold({ resourceType: resource.type, resourceId: resource.id, workspaceId, reporterOrg, ...(foreignWorkspace ? { foreignWorkspace } : {}) });
      return { held: written.value, revision: written.revision };
    },
    async releasePlacement(resource, reporterOrg) {
      return (await store.placements.release(resource.type, resource.id, reporterOrg)).value;
    },
  };
}

export async function openStoreSource(config: StoreConfig): Promise<{ store: Store; source: GraphSource; writer: ResourceWriter }> {
  const store = await openStore(config);
  return { store, source: storeGraphSource(store), writer: storeResourceWriter(store) };
}
