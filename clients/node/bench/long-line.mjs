// How long the client's line framing (src/rpc.ts) takes to reassemble one
// long line fed in 8 KiB chunks, as a pipe hands a large answer over.
// Build first (`npm run build`), then: node bench/long-line.mjs [MiB...]
// (default 8 16 32). Each size is timed three times; the median is printed.
import { PassThrough } from "node:stream";
import { setImmediate as tick } from "node:timers/promises";
import { Connection } from "../dist/rpc.js";

const sizes = process.argv.slice(2).map(Number);
for (const mib of sizes.length > 0 ? sizes : [8, 16, 32]) {
  const wire = Buffer.from(
    `${JSON.stringify({ jsonrpc: "2.0", method: "big", params: { text: "x".repeat(mib << 20) } })}\n`,
  );
  const times = [];
  for (let round = 0; round < 3; round++) {
    const input = new PassThrough();
    let heard = 0;
    new Connection(input, new PassThrough(), { onNotification: () => heard++, onProtocolError: () => {} });
    const started = process.hrtime.bigint();
    for (let at = 0; at < wire.length; at += 8 << 10) {
      input.write(wire.subarray(at, at + (8 << 10)));
      await tick();
    }
    if (heard !== 1) throw new Error(`the line did not come whole (${heard} heard)`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(`${mib} MiB line in 8 KiB chunks: ${times[1].toFixed(0)} ms (median of 3)`);
}
