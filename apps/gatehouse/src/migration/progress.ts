import cliProgress from "cli-progress";

export interface Progress {
  update(done: number, detail?: string): void;
  stop(): void;
}

/**
 * A progress bar on stderr when it is a terminal; otherwise plain progress lines (every ~10%),
 * so logs of batch runs stay readable.
 */
export function createProgress(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar({ stream, format: `${label} [{bar}] {value}/{total} {detail}`, hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic);
    bar.start(total, 0, { detail: "" });
    return { update: (done, detail = "") => bar.update(done, { detail }), stop: () => bar.stop() };
  }
  const step = Math.max(1, Math.ceil(total / 10));
  let last = 0;
  return {
    update(done, detail) {
      if (done === total || done - last >= step) {
        last = done;
        stream.write(`${label}: ${done}/${total}${detail ? ` ${detail}` : ""}\n`);
      }
    },
    stop() {},
  };
}
