/** Where two texts first differ, for byte-for-byte assertions; undefined when equal. */
export function firstDifference(actual: string, expected: string): string | undefined {
  if (actual === expected) return undefined;
  const a = actual.split("\n");
  const e = expected.split("\n");
  const line = Array.from({ length: Math.max(a.length, e.length) }, (_, i) => i).find((i) => a[i] !== e[i]);
  if (line === undefined) return `texts differ only in line endings (lengths ${actual.length} vs ${expected.length})`;
  return `line ${line + 1}: expected ${JSON.stringify(e[line])}, got ${JSON.stringify(a[line])}`;
}
