// A local OTLP/HTTP collector for the benchmark, in its own process so decoding spans does not
// count as server CPU. Sends its endpoint to the parent, then the number of spans when asked.
import { startOtlpReceiver } from "@gatehouse/telemetry/testing";

const receiver = await startOtlpReceiver();
process.send!({ endpoint: receiver.endpoint });
// Only the count is needed: keep memory flat over a long run.
let counted = 0;
const tally = () => {
  counted += receiver.spans.length;
  receiver.spans.length = 0;
};
setInterval(tally, 1000).unref();
process.on("message", () => {
  tally();
  process.send!({ spans: counted });
});
