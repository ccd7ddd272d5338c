/**
 * Whether a dependency (the store) answers, asked at most once per `ttlMs` (the readiness endpoint is public and
 * probed often) and bounded by `timeoutMs` (a hung database must not hang the probe).
 */
export function cachedProbe(ask: () => Promise<unknown>, options: { ttlMs?: number; timeoutMs?: number } = {}): () => Promise<boolean> {
  const ttlMs = options.ttlMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 2000;
  let last: { at: number; answer: Promise<boolean> } | null = null;
  return () => {
    const now = Date.now();
    if (last && now - last.at < ttlMs) return last.answer;
    const answer = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      ask().then(
        () => (clearTimeout(timer), resolve(true)),
        () => (clearTimeout(timer), resolve(false)),
      );
    });
    last = { at: now, answer };
    return answer;
  };
}
