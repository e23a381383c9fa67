/**
 * A harness the lifecycle tests run in a process of its own, to see what
 * happens to that process: `node harness.js MODE BIN CONFIG_JSON`. It
 * prints `pid N` (latch's), then a line for each thing that happens.
 *
 * - `ctrl-c`: fires a hanging hook, prints `ready`, and handles Ctrl-C as
 *   an interactive agent does: it aborts that fire and keeps the session.
 * - `idle`: waits for a fire and for an async hook's answer, then falls
 *   off the end without `close()`.
 * - `unserialisable`: fires events JSON cannot carry, then falls off the end.
 * - `break`: leaves a `for await` over `notifications()` with `break` at the
 *   first one (an async hook's answer), then falls off the end without
 *   `close()`: Node exits only if the `break` removed the iterator's
 *   listeners.
 * - `throwing` (with test/fixture.ts's fakeLatch answering a fire with a
 *   notification and the outcome in one write): listeners that throw, for
 *   a notification and for `exit`, while a fire and `close()` wait.
 */

import { LatchClient, type LatchConfig, type LatchEvent } from "../src/index.js";

const [mode, bin, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson ?? "{}") as LatchConfig;
const latch = await LatchClient.start({ bin, config });
console.log(`pid ${String(latch.pid)}`);

const bash = (session_id: string, command: string): LatchEvent => ({
  event: "tool_before",
  session_id,
  tool: { name: "Bash", input: { command } },
});

switch (mode) {
  case "ctrl-c": {
    const controller = new AbortController();
    process.on("SIGINT", () => controller.abort());
    const slow = latch.fire(
      { event: "tool_before", session_id: "c", tool: { name: "Slow", input: {} } },
      { signal: controller.signal },
    );
    console.log("ready");
    const outcome = await slow;
    console.log(outcome.warnings?.some((w) => w.startsWith("dispatch cancelled")) === true ? "cancelled" : "not cancelled");
    // The session goes on, with the same latch.
    console.log((await latch.fire(bash("c", "ls"))).decision);
    await latch.close();
    break;
  }
  case "idle": {
    // A top-level await that nothing keeps alive ends Node with code 13:
    // the fire in flight, then the open iterator, must keep it running.
    const nap = await latch.fire({ event: "tool_before", session_id: "n", tool: { name: "Nap", input: {} } });
    console.log(`nap ${nap.decision}`);
    const results = latch.asyncResults();
    await latch.fire({
      event: "tool_after",
      session_id: "w",
      tool: { name: "Write", input: { file_path: "a.txt", content: "a" }, output: "ok" },
    });
    const next = await results.next();
    console.log(`async ${next.done === true ? "none" : next.value.event}`);
    await results.return?.();
    break;
  }
  case "unserialisable": {
    const circular: Record<string, unknown> = { event: "user_prompt", session_id: "u" };
    circular["prompt"] = circular;
    const events = [{ event: "user_prompt", session_id: "u", prompt: 1n }, circular];
    for (const event of events) {
      await latch.fire(event as unknown as LatchEvent).then(
        () => console.log("fired"),
        (error: unknown) => console.log(`rejected ${(error as Error).name}`),
      );
    }
    console.log((await latch.fire(bash("u", "ls"))).decision);
    break;
  }
  case "break": {
    const reading = (async () => {
      for await (const note of latch.notifications()) {
        console.log(`heard ${note.method}`);
        break;
      }
    })();
    await latch.fire({
      event: "tool_after",
      session_id: "b",
      tool: { name: "Write", input: { file_path: "a.txt", content: "a" }, output: "ok" },
    });
    await reading;
    break;
  }
  case "throwing": {
    process.on("uncaughtException", (error) => console.log(`uncaught ${error.message}`));
    latch.on("notification", () => {
      throw new Error("from a notification listener");
    });
    latch.once("asyncResult", () => {
      throw new Error("from an asyncResult listener");
    });
    latch.on("asyncResult", () => console.log("the next asyncResult listener heard it"));
    latch.on("exit", () => {
      throw new Error("from an exit listener");
    });
    console.log(`fire ${(await latch.fire({ event: "stop", session_id: "t" })).decision}`);
    console.log(`closed ${JSON.stringify(await latch.close())}`);
    break;
  }
  default:
    throw new Error(`unknown mode ${String(mode)}`);
}
// Falls off the end: the client was closed (ctrl-c) or not (the others).
