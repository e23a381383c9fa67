import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ErrorCode, LatchClient, LatchRpcError, isCancelled, type AsyncResult } from "../src/index.js";
import { latchBin, makeProject, within, type Project } from "./fixture.js";

describe("a running latch", () => {
  let project: Project;
  let latch: LatchClient;

  before(async () => {
    project = await makeProject();
    latch = await LatchClient.start({ bin: latchBin(), cwd: project.dir, config: project.config });
  });

  after(async () => {
    await latch.close();
    await project.cleanup();
  });

  test("initialize names the server, the dialects and the diagnostics", () => {
    assert.equal(latch.initializeResult.server.name, "latch");
    assert.match(latch.initializeResult.server.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(latch.initializeResult.dialects, ["claude"]);
    assert.deepEqual(latch.initializeResult.diagnostics, []);
  });

  test("a hook denies a tool call", async () => {
    const outcome = await latch.fire({
      event: "tool_before",
      session_id: "deny",
      tool: { name: "Bash", input: { command: "rm -rf /" } },
    });
    assert.equal(outcome.event, "tool_before");
    assert.equal(outcome.decision, "deny");
    assert.match(outcome.reasons?.[0]?.text ?? "", /Refusing to delete the whole tree/);
    assert.equal(outcome.notices?.[0]?.kind, "block");
    assert.equal(outcome.runs[0]?.status, "blocked");
    assert.equal(outcome.runs[0]?.exit_code, 2);
    assert.equal(isCancelled(outcome), false);
  });

  test("a hook lets a tool call proceed untouched", async () => {
    const outcome = await latch.fire({
      event: "tool_before",
      session_id: "proceed",
      tool: { name: "Bash", input: { command: "ls" } },
    });
    assert.equal(outcome.decision, "proceed");
    assert.equal(outcome.tool_input, undefined);
    assert.equal(outcome.runs[0]?.status, "ok");
  });

  test("a hook allows and rewrites a tool call", async () => {
    const outcome = await latch.fire({
      event: "tool_before",
      session_id: "rewrite",
      tool: { name: "Bash", input: { command: "npm test" } },
    });
    assert.equal(outcome.decision, "allow");
    assert.deepEqual(outcome.tool_input, { command: "npm test --silent" });
  });

  test("a hook rewrites a tool result", async () => {
    const outcome = await latch.fire({
      event: "tool_after",
      session_id: "redact",
      tool: { name: "Fetch", input: { url: "https://example.com" }, output: "the secret page" },
    });
    assert.equal(outcome.decision, "proceed");
    assert.equal(outcome.tool_output, "[redacted]");
  });

  test("an event no hook matches runs nothing", async () => {
    const outcome = await latch.fire({ event: "notification", message: "Build finished" });
    assert.deepEqual(outcome, { event: "notification", decision: "proceed", runs: [] });
    // @ts-expect-error: the outcome's fields are closed too: a misspelled one does not read as `undefined`.
    assert.equal(outcome.decison, undefined);
  });

  test("an invalid event is an error naming the field, and a type error too", async () => {
    await assert.rejects(
      // @ts-expect-error: the event types are closed, as latch is.
      latch.fire({ event: "stop", sesion_id: "x" }),
      (error: unknown) =>
        error instanceof LatchRpcError &&
        error.code === ErrorCode.InvalidParams &&
        error.method === "fire" &&
        error.rpcMessage.includes("unknown field `sesion_id`"),
    );
    await assert.rejects(
      // @ts-expect-error: an event kind latch does not know.
      latch.fire({ event: "tool_befor", session_id: "x" }),
      (error: unknown) =>
        error instanceof LatchRpcError && error.code === ErrorCode.InvalidParams && /tool_befor/.test(error.message),
    );
    await assert.rejects(
      // @ts-expect-error: a tool event's `tool` is required.
      latch.fire({ event: "tool_before" }),
      (error: unknown) =>
        error instanceof LatchRpcError && error.code === ErrorCode.InvalidParams && /`tool` object/.test(error.message),
    );
  });

  test("an event JSON cannot carry is a TypeError, and nothing is sent", async () => {
    const circular: Record<string, unknown> = { event: "user_prompt", session_id: "json" };
    circular["prompt"] = circular;
    await assert.rejects(latch.fire({ event: "user_prompt", session_id: "json", prompt: 1n } as never), TypeError);
    await assert.rejects(latch.fire(circular as never), TypeError);
    const outcome = await latch.fire({ event: "user_prompt", session_id: "json", prompt: "hi" });
    assert.equal(outcome.decision, "proceed");
  });

  test("explain says which hooks would run, running none", async () => {
    const explained = await latch.explain({
      event: "tool_before",
      tool: { name: "Bash", input: { command: "rm -rf /" } },
    });
    const guard = explained.find((e) => e.hook.includes("guard.sh"));
    assert.equal(guard?.runs, true);
    assert.equal(guard?.event, "PreToolUse");
    assert.equal(explained.find((e) => e.hook === "sleep 30")?.runs, false);
  });

  test("fires of different sessions run at once and each gets its own outcome", async () => {
    const sessions = ["a", "b", "c", "d", "e", "f"];
    const started = Date.now();
    const outcomes = await Promise.all(
      sessions.map((session_id) => latch.fire({ event: "tool_before", session_id, tool: { name: "Nap", input: {} } })),
    );
    const elapsed = Date.now() - started;
    outcomes.forEach((outcome, i) => {
      assert.equal(outcome.context?.length, 1);
      assert.match(outcome.context?.[0]?.text ?? "", new RegExp(`session=${sessions[i]}\\b`));
      assert.equal(outcome.context?.[0]?.placement, "after_tool_result");
    });
    // Six half-second hooks, in parallel.
    assert.ok(elapsed < 2000, `took ${elapsed} ms`);
  });

  test("fires of one session run one after the other", async () => {
    const started = Date.now();
    await Promise.all([1, 2, 3].map(() => latch.fire({ event: "tool_before", session_id: "serial", tool: { name: "Nap" } })));
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 1400, `took ${elapsed} ms`);
  });

  test("aborting a fire cancels the running hook and resolves with what ran", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const fired = latch.fire(
      { event: "tool_before", session_id: "slow", tool: { name: "Slow", input: {} } },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 300);
    const outcome = await within(fired, 5000, "cancelled fire");
    assert.ok(Date.now() - started < 5000);
    assert.ok(isCancelled(outcome), `warnings: ${JSON.stringify(outcome.warnings)}`);
    assert.equal(outcome.runs[0]?.hook, "sleep 30");
    assert.equal(outcome.runs[0]?.status, "failed");
  });

  test("with onAbort: reject, an abort rejects at once with the signal's reason and still cancels the hook", async () => {
    const controller = new AbortController();
    const fired = latch.fire(
      { event: "tool_before", session_id: "slow-reject", tool: { name: "Slow", input: {} } },
      { signal: controller.signal, onAbort: "reject" },
    );
    setTimeout(() => controller.abort(new Error("the user pressed Stop")), 300);
    await assert.rejects(within(fired, 5000, "rejected fire"), { message: "the user pressed Stop" });
    // The hook was cancelled: the session's next fire does not wait 30 s
    // behind it.
    const next = await within(
      latch.fire({ event: "tool_before", session_id: "slow-reject", tool: { name: "Bash", input: { command: "ls" } } }),
      5000,
      "the session's next fire",
    );
    assert.equal(next.event, "tool_before");
  });

  test("a signal aborted beforehand rejects without firing", async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      latch.fire({ event: "tool_before", session_id: "slow", tool: { name: "Slow" } }, { signal: controller.signal }),
      { name: "AbortError" },
    );
  });

  test("an async hook's answer arrives as latch/asyncResult and with the next tool result", async () => {
    const results = latch.asyncResults();
    const heard: AsyncResult[] = [];
    const listener = (result: AsyncResult): void => void heard.push(result);
    latch.on("asyncResult", listener);

    const outcome = await latch.fire({
      event: "tool_after",
      session_id: "async",
      tool: { name: "Write", input: { file_path: "a.txt", content: "a" }, output: "ok" },
    });
    assert.equal(outcome.decision, "proceed");
    assert.match(outcome.runs[0]?.message ?? "", /background/);

    const next = await within(results.next(), 5000, "latch/asyncResult");
    await results.return?.();
    latch.off("asyncResult", listener);
    assert.equal(next.done, false);
    const result = next.value as AsyncResult;
    assert.equal(result.session_id, "async");
    assert.equal(result.dialect, "claude");
    assert.equal(result.event, "PostToolUse");
    assert.deepEqual(result.texts, ["<system-reminder>\nX\n</system-reminder>"]);
    assert.deepEqual(heard, [result]);

    const later = await latch.fire({
      event: "tool_after",
      session_id: "async",
      tool: { name: "Read", input: { file_path: "a.txt" }, output: "a" },
    });
    assert.deepEqual(
      later.context?.map((c) => [c.placement, c.text]),
      [["append_to_tool_result", "<system-reminder>\nX\n</system-reminder>"]],
    );
  });
});

test("an event over latch's size limit and a line over its line limit are refused, and latch goes on", async () => {
  const project = await makeProject();
  const env = { ...process.env, LATCH_MAX_EVENT_BYTES: "1000" };
  const latch = await LatchClient.start({ bin: latchBin(), cwd: project.dir, config: project.config, env });
  try {
    await assert.rejects(
      latch.fire({ event: "user_prompt", session_id: "s", prompt: "x".repeat(2000) }),
      (error: unknown) =>
        error instanceof LatchRpcError &&
        error.code === ErrorCode.InvalidParams &&
        error.rpcMessage.includes("over the limit of 1000 bytes"),
    );
    // The line limit is the event limit plus 1 MiB: latch skips the line
    // unread and answers with its id.
    await assert.rejects(
      latch.fire({ event: "user_prompt", session_id: "s", prompt: "x".repeat(2 << 20) }),
      (error: unknown) =>
        error instanceof LatchRpcError && error.code === ErrorCode.InvalidRequest && error.method === "fire",
    );
    assert.equal((await latch.fire({ event: "stop", session_id: "s" })).decision, "proceed");
  } finally {
    await latch.close();
    await project.cleanup();
  }
});
