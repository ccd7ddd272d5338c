// Deterministic ids so that planning the same v1 data twice yields the same v2 ids (idempotent
// migration) without a random source or a crypto dependency in this pure package.

function fnv1a32(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A UUID-shaped id derived from `parts` (stable across runs; not a random UUID). */
export function deterministicId(...parts: string[]): string {
  const text = parts.join("\u0000");
  const hex = [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b].map((seed) => fnv1a32(text, seed).toString(16).padStart(8, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
