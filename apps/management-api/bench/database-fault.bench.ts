// Fault under load: the management API (a separate process) on a PostgreSQL cluster of its own,
// WRITERS concurrent workspace creators, then `pg_ctl restart -m fast` and a SIGKILL of the
// postmaster (then a start). Prints acknowledged writes, lost ones (acknowledged but absent),
// ghosts (refused but present), the refusals' statuses, and per fault the time from the fault to
// the database being back and from then to the next acknowledged write.
import { startPrivatePostgres } from "@gatehouse/store/testing";
import { spawnManagementApi } from "../test/support/api-process.js";
import { WriteLoad } from "../test/support/write-load.js";

const WRITERS = Number(process.env["WRITERS"] ?? 8);
const PER_PHASE = Number(process.env["ACKS_PER_PHASE"] ?? 200);

const postgres = await startPrivatePostgres();
// Info level: the "listening" line tells the driver the port.
const api = await spawnManagementApi({ DATABASE_URL: postgres.url });
const load = new WriteLoad(api.baseUrl, "fault-run-org", WRITERS);
const faults: { fault: string; downMs: number; backToFirstAckMs: number }[] = [];

async function fault(name: string, inject: () => Promise<void>): Promise<void> {
  const mark = load.outcomes.length;
  const started = performance.now();
  await inject();
  const back = performance.now();
  const after = load.outcomes.length;
  await Promise.race([load.untilAcknowledged(1, after), api.died]);
  const firstAck = load.outcomes.slice(after).find((o) => o.status === 201);
  faults.push({ fault: name, downMs: Math.round(back - started), backToFirstAckMs: Math.round((firstAck?.at ?? performance.now()) - back) });
  await Promise.race([load.untilAcknowledged(PER_PHASE, mark), api.died]);
}

try {
  load.start();
  await Promise.race([load.untilAcknowledged(PER_PHASE), api.died]);
  await fault("pg_ctl restart -m fast", () => postgres.restart("fast"));
  await fault("kill -9 postmaster, then start", async () => {
    await postgres.kill();
    await postgres.start();
  });
  await load.stop();
  const audit = await load.audit();
  const statuses: Record<string, number> = {};
  for (const o of load.outcomes.filter((x) => x.status !== 201)) statuses[String(o.status)] = (statuses[String(o.status)] ?? 0) + 1;
  console.log(
    JSON.stringify(
      {
        writers: WRITERS,
        requests: load.outcomes.length,
        acknowledged: audit.acknowledged,
        lost: audit.lost.length,
        ghosts: audit.ghosts.length,
        refusals: statuses,
        processAlive: api.exitCode() === null,
        faults,
      },
      null,
      2,
    ),
  );
} finally {
  await load.stop();
  await api.stop();
  await postgres.destroy();
}
