// The engines' graph checkpoints as rows: one bytea per revision, the newest few kept. The bytes
// are opaque here (authz-engine encodes and verifies them).
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import type { CheckpointRepository } from "../types.js";

const requireRevision = (revision: number) => {
  if (!Number.isSafeInteger(revision) || revision < 0) throw new StoreError("invalid-argument", "revision must be a non-negative integer.");
};

export function checkpointRepository(ctx: StoreContext): CheckpointRepository {
  return {
    async list() {
      const rows = await ctx.readDb.query<{ revision: string }>("SELECT revision::text AS revision FROM gh_checkpoints ORDER BY revision DESC");
      return rows.map((r) => Number(r.revision));
    },
    async read(revision) {
      requireRevision(revision);
      const [row] = await ctx.readDb.query<{ bytes: Uint8Array }>("SELECT bytes FROM gh_checkpoints WHERE revision = $1", [revision]);
      return row ? new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : null;
    },
    async write(revision, bytes, keep) {
      requireRevision(revision);
      if (!Number.isInteger(keep) || keep < 1) throw new StoreError("invalid-argument", "keep must be a positive integer.");
      await ctx.db.transaction(async (tx) => {
        await tx.query("INSERT INTO gh_checkpoints (revision, bytes) VALUES ($1, $2) ON CONFLICT (revision) DO UPDATE SET bytes = EXCLUDED.bytes, written_at = now()", [revision, bytes]);
        await tx.query("DELETE FROM gh_checkpoints WHERE revision NOT IN (SELECT revision FROM gh_checkpoints ORDER BY revision DESC LIMIT $1)", [keep]);
      });
    },
  };
}
