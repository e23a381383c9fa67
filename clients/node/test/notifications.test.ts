/**
 * The notification iterators, `diagnostics()` and `notifications()`, against
 * the real binary: an edit on disk makes latch reload and send
 * `latch/diagnostics`, an `async` hook's answer comes as `latch/asyncResult`.
 */

import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { LatchClient, type LatchNotification } from "../src/index.js";
import { fakeLatch, latchBin, makeProject, within } from "./fixture.js";

/** A `tool_after` of the fixture's `Write`, whose `async` hook answers 0.2 s later. */
const write = (session_id: string) =>
  ({
    event: "tool_after",
    session_id,
    tool: { name: "Write", input: { file_path: "a.txt", content: "a" }, output: "ok" },
  }) as const;

test("diagnostics() and notifications() yield a reload's latch/diagnostics; notifications() the async results too", async (t) => {
  const project = await makeProject();
  t.after(() => project.cleanup());
  await using latch = await LatchClient.start({ bin: latchBin(), cwd: project.dir, config: project.config });
  const stop = new AbortController();
  const diagnostics = latch.diagnostics({ signal: stop.signal });
  const notifications = latch.notifications();

  // A clean edit on disk: latch reloads, and says so (docs/serve.md#configuration-changes).
  await writeFile(join(project.dir, ".claude", "settings.local.json"), '{"hooks":{}}');
  const reload = await within(diagnostics.next(), 10_000, "latch/diagnostics from diagnostics()");
  assert.equal(reload.done, false);
  assert.deepEqual(reload.value, { cwd: null, first_load: false, reloaded: true, reason: null, kept: [], diagnostics: [] });
  const first = await within(notifications.next(), 5000, "latch/diagnostics from notifications()");
  assert.deepEqual(first.value, { method: "latch/diagnostics", params: reload.value });

  // An async hook's answer: notifications() has it, diagnostics() does not.
  const pending = diagnostics.next();
  await latch.fire(write("n"));
  const second = await within(notifications.next(), 5000, "latch/asyncResult from notifications()");
  assert.ok(second.done !== true);
  const note: LatchNotification = second.value;
  assert.equal(note.method, "latch/asyncResult");
  if (note.method === "latch/asyncResult") {
    // `method` narrows `params`.
    assert.equal(note.params.session_id, "n");
    assert.deepEqual(note.params.texts, ["<system-reminder>\nX\n</system-reminder>"]);
  }
  stop.abort();
  assert.deepEqual(await within(pending, 1000, "diagnostics() ended by its signal"), { value: undefined, done: true });
  await notifications.return?.();
  assert.deepEqual(await notifications.next(), { value: undefined, done: true });
});

test("the notification iterators end when latch exits, and at once after it or with an aborted signal", async (t) => {
  const project = await makeProject();
  t.after(() => project.cleanup());
  const latch = await LatchClient.start({ bin: latchBin(), cwd: project.dir, config: project.config });
  const diagnostics = latch.diagnostics();
  const notifications = latch.notifications();
  const waiting: Array<Promise<IteratorResult<unknown>>> = [diagnostics.next(), notifications.next()];

  const aborted = AbortSignal.abort();
  assert.deepEqual(await latch.diagnostics({ signal: aborted }).next(), { value: undefined, done: true });
  assert.deepEqual(await latch.notifications({ signal: aborted }).next(), { value: undefined, done: true });

  await latch.close();
  for (const next of waiting) assert.deepEqual(await within(next, 5000, "the end"), { value: undefined, done: true });
  assert.deepEqual(await latch.diagnostics().next(), { value: undefined, done: true });
  assert.deepEqual(await latch.notifications().next(), { value: undefined, done: true });
});

test("the listeners given to start hear the notifications sent before and with initialize's answer", async (t) => {
  const scratch = await mkdtemp(join(tmpdir(), "latch-client-early-"));
  t.after(() => rm(scratch, { recursive: true, force: true }));
  // One write: a notification, the answer to initialize, two notifications.
  const bin = await fakeLatch(
    join(scratch, "early.cjs"),
    `(request) => {
      const diagnostics = (cwd) => notification("latch/diagnostics", { cwd, first_load: true, reloaded: true, reason: null, kept: [], diagnostics: [] });
      const asyncResult = notification("latch/asyncResult", { session_id: "s", dialect: "claude", hook: "h", event: "PostToolUse", texts: ["t"] });
      return request.method === "initialize"
        ? [diagnostics("/before"), result(request, initialized), diagnostics("/with"), asyncResult]
        : [result(request, null)];
    }`,
  );
  const heard: string[] = [];
  const latch = await LatchClient.start({
    bin,
    onNotification: (method) => heard.push(method),
    onDiagnostics: (note) => heard.push(`diagnostics ${String(note.cwd)}`),
    onAsyncResult: (result) => heard.push(`asyncResult ${result.session_id}`),
  });
  assert.deepEqual(heard, [
    "latch/diagnostics",
    "diagnostics /before",
    "latch/diagnostics",
    "diagnostics /with",
    "latch/asyncResult",
    "asyncResult s",
  ]);
  assert.deepEqual(await latch.close(), { exitCode: 0, signal: null });
});
