import assert from "node:assert/strict";
import { test } from "node:test";
import { LatchClient, isCancelled, type Outcome } from "../src/index.js";
import { latchBin, makeProject, within } from "./fixture.js";

/** An outcome with these warnings, and nothing else to do. */
const warned = (...warnings: string[]): Outcome => ({ event: "tool_before", decision: "proceed", runs: [], warnings });

test("isCancelled looks for a warning that starts with `dispatch cancelled`", () => {
  // The three warnings docs/serve.md gives a cancelled answer, and `latch fire`'s on a signal.
  assert.equal(isCancelled(warned("dispatch cancelled: latch killed the running hook and its descendants and started no further hook")), true);
  assert.equal(isCancelled(warned("dispatch cancelled: no hook was running; latch started no further hook")), true);
  assert.equal(isCancelled(warned("a hook failed", "dispatch cancelled before any hook ran")), true);
  assert.equal(isCancelled(warned("dispatch cancelled by SIGHUP: latch killed the running hook and its descendants")), true);

  assert.equal(isCancelled({ event: "stop", decision: "proceed", runs: [] }), false);
  assert.equal(isCancelled(warned()), false);
  assert.equal(isCancelled(warned("PreToolUse:Bash hook error: dispatch cancelled")), false);
  assert.equal(isCancelled(warned("Dispatch cancelled")), false);
});

test("isCancelled tells a fire aborted while queued behind its session from the one it waited for", async (t) => {
  const project = await makeProject();
  t.after(() => project.cleanup());
  await using latch = await LatchClient.start({ bin: latchBin(), cwd: project.dir, config: project.config });

  const first = new AbortController();
  const slow = latch.fire({ event: "tool_before", session_id: "q", tool: { name: "Slow", input: {} } }, { signal: first.signal });
  const second = new AbortController();
  const queued = latch.fire(
    { event: "tool_before", session_id: "q", tool: { name: "Bash", input: { command: "ls" } } },
    { signal: second.signal },
  );
  setTimeout(() => second.abort(), 200);
  const skipped = await within(queued, 5000, "the queued fire");
  assert.ok(isCancelled(skipped), `warnings: ${JSON.stringify(skipped.warnings)}`);
  assert.ok(skipped.warnings?.includes("dispatch cancelled before any hook ran"));
  assert.deepEqual(skipped.runs, []);

  first.abort();
  assert.equal(isCancelled(await within(slow, 5000, "the slow fire")), true);
  const after = await latch.fire({ event: "tool_before", session_id: "q", tool: { name: "Bash", input: { command: "ls" } } });
  assert.equal(isCancelled(after), false);
});
