/**
 * The connection's line framing (src/rpc.ts), fed by hand: lines cut across
 * chunks anywhere, a newline at either end of a chunk, a UTF-8 character
 * split between two chunks, a long line in many small chunks.
 */

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { Connection } from "../src/rpc.js";

/** A connection over two pass-through streams, recording what it hands on. */
function connect(): { input: PassThrough; connection: Connection; heard: unknown[]; errors: Error[] } {
  const input = new PassThrough();
  const heard: unknown[] = [];
  const errors: Error[] = [];
  const connection = new Connection(input, new PassThrough(), {
    onNotification: (method, params) => heard.push({ method, params }),
    onProtocolError: (error) => errors.push(error),
  });
  return { input, connection, heard, errors };
}

test("lines cut anywhere across chunks, UTF-8 characters split between two included, come whole", async () => {
  const notes = ["é", "€ and 😀", "", "a\nb (an escaped newline)", "x".repeat(300), "ünïcödé 😀😀"].map((text, i) => ({
    method: `m${i}`,
    params: { text },
  }));
  // Blank lines, and a line of spaces, are skipped; two lines may share a chunk.
  const wire = Buffer.from(
    `${notes.map((n) => JSON.stringify({ jsonrpc: "2.0", ...n })).join("\n\n")}\n   \n${JSON.stringify({ jsonrpc: "2.0", id: 1, result: "é😀" })}\n`,
  );
  for (const size of [1, 2, 3, 5, 7, 64, wire.length]) {
    const { input, connection, heard, errors } = connect();
    const answer = connection.request<string>("m", {}).result;
    for (let at = 0; at < wire.length; at += size) input.write(wire.subarray(at, at + size));
    await tick();
    assert.deepEqual(heard, notes, `chunks of ${size} bytes`);
    assert.equal(await answer, "é😀");
    assert.deepEqual(errors, []);
  }
  // Each cut once: a newline at the end of the first chunk, at the start of the second, a character split.
  for (let cut = 1; cut < wire.length; cut++) {
    const { input, connection, heard } = connect();
    const answer = connection.request<string>("m", {}).result;
    input.write(wire.subarray(0, cut));
    input.write(wire.subarray(cut));
    await tick();
    assert.deepEqual(heard, notes, `cut at byte ${cut}`);
    assert.equal(await answer, "é😀");
  }
});

test("a long line in many small chunks comes whole", async () => {
  // Its cost is measured, not asserted here: bench/long-line.mjs.
  const { input, heard } = connect();
  const text = "x".repeat(4 << 20);
  const wire = Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", method: "big", params: { text } })}\n`);
  for (let at = 0; at < wire.length; at += 8 << 10) {
    input.write(wire.subarray(at, at + (8 << 10)));
  }
  await tick();
  assert.equal(heard.length, 1);
  assert.equal((heard[0] as { params: { text: string } }).params.text.length, text.length);
});
