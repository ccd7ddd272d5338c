// The engines' graph checkpoints as rows: one row per revision, the newest few kept, its bytes in
// parts (migration 11). One bytea per checkpoint failed past about 512 MiB: Postgres sends a bytea
// as hex text twice its size and refuses to build text past 1 GB (a 700 MiB checkpoint was written,
// then its read failed), and a client would hold that text as one string besides. The bytes are
// opaque here (authz-engine encodes and verifies them).
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import type { CheckpointRepository } from "../types.js";

/** Bytes per part: its text as read (base64, about 90 M characters) stays well inside one string. */
export const CHECKPOINT_PART_BYTES = 64 * 1024 * 1024;

/** Parts read at once (separate connections of the read pool). */
const PARALLEL_PARTS = 3;

const requireRevision = (revision: number) => {
  if (!Number.isSafeInteger(revision) || revision < 0) throw new StoreError("invalid-argument", "revision must be a non-negative integer.");
};

const view = (bytes: Uint8Array) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export interface CheckpointRepositoryOptions {
  /** Bytes per stored part (tests use small parts to exercise many). */
  partBytes?: number;
}

export function checkpointRepository(ctx: StoreContext, options: CheckpointRepositoryOptions = {}): CheckpointRepository {
  const partBytes = options.partBytes ?? CHECKPOINT_PART_BYTES;
  if (!Number.isSafeInteger(partBytes) || partBytes < 1) throw new StoreError("invalid-argument", "checkpoint part size must be a positive integer.");
  return {
    async list() {
      const rows = await ctx.readDb.query<{ revision: string }>("SELECT revision::text AS revision FROM gh_checkpoints ORDER BY revision DESC");
      return rows.map((r) => Number(r.revision));
    },
    async read(revision) {
      requireRevision(revision);
      const [row] = await ctx.readDb.query<{ parts: number; part_bytes: number | null; size: string | null; bytes: Uint8Array | null }>(
        "SELECT parts, part_bytes, size::text AS size, CASE WHEN parts = 0 THEN bytes END AS bytes FROM gh_checkpoints WHERE revision = $1",
        [revision],
      );
      if (!row) return null;
      if (row.parts === 0) return row.bytes ? view(row.bytes) : null;
      // One part per statement, each copied into place (no text or buffer of the whole), a few at
      // a time so the server's encoding and the client's decoding overlap. Parts come as base64:
      // a third less text than bytea's hex output, and decoded natively.
      const size = Number(row.size);
      const step = row.part_bytes ?? 0;
      if (step < 1 || Math.ceil(size / step) !== row.parts) return null;
      const out = new Uint8Array(size);
      const readPart = async (part: number): Promise<boolean> => {
        const [piece] = await ctx.readDb.query<{ text: string }>("SELECT encode(bytes, 'base64') AS text FROM gh_checkpoint_parts WHERE revision = $1 AND part = $2", [revision, part]);
        // Gone: a newer checkpoint's write removed this one meanwhile.
        if (!piece) return false;
        const bytes = Buffer.from(piece.text, "base64");
        const at = part * step;
        if (bytes.byteLength !== Math.min(step, size - at)) return false;
        out.set(bytes, at);
        return true;
      };
      for (let first = 0; first < row.parts; first += PARALLEL_PARTS) {
        const batch = Array.from({ length: Math.min(PARALLEL_PARTS, row.parts - first) }, (_, i) => readPart(first + i));
        if (!(await Promise.all(batch)).every(Boolean)) return null;
      }
      return out;
    },
    async write(revision, bytes, keep) {
      requireRevision(revision);
      if (!Number.isInteger(keep) || keep < 1) throw new StoreError("invalid-argument", "keep must be a positive integer.");
      const parts = Math.ceil(bytes.byteLength / partBytes);
      await ctx.db.transaction(async (tx) => {
        await tx.query(
          "INSERT INTO gh_checkpoints (revision, bytes, parts, part_bytes, size) VALUES ($1, '', $2, $3, $4) ON CONFLICT (revision) DO UPDATE SET bytes = '', parts = EXCLUDED.parts, part_bytes = EXCLUDED.part_bytes, size = EXCLUDED.size, written_at = now()",
          [revision, parts, partBytes, bytes.byteLength],
        );
        await tx.query("DELETE FROM gh_checkpoint_parts WHERE revision = $1", [revision]);
        for (let part = 0; part < parts; part++) {
          const piece = bytes.subarray(part * partBytes, Math.min(bytes.byteLength, (part + 1) * partBytes));
          await tx.query("INSERT INTO gh_checkpoint_parts (revision, part, bytes) VALUES ($1, $2, $3)", [revision, part, piece]);
        }
        await tx.query("DELETE FROM gh_checkpoints WHERE revision NOT IN (SELECT revision FROM gh_checkpoints ORDER BY revision DESC LIMIT $1)", [keep]);
      });
    },
  };
}
