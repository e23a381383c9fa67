/**
 * latch's process and this one: Ctrl-C, start limits, a latch that stops
 * answering, a client never closed, the environment the binary is found in.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { LatchClient, LatchNotFoundError, LatchTimeoutError, type LatchConfig } from "../src/index.js";
import { fakeLatch, latchBin, makeProject, within, type Project } from "./fixture.js";

const HARNESS = fileURLToPath(new URL("./harness.js", import.meta.url));

interface HarnessRun {
  /** The harness's exit code; `null` if it had to be killed. */
  code: number | null;
  /** What it printed after `pid N`. */
  lines: string[];
  /** latch's process id. */
  latchPid: number;
  stderr: string;
}

/**
 * Runs test/harness.ts in a session and process group of its own, as a
 * shell runs a job; kills it past `ms`. `onLine` sees each line it prints.
 */
function runHarness(
  mode: string,
  config: LatchConfig,
  ms: number,
  onLine: (line: string, groupPid: number) => void = () => undefined,
  bin: string = latchBin(),
): Promise<HarnessRun> {
  const child = spawn(process.execPath, [HARNESS, mode, bin, JSON.stringify(config)], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run: HarnessRun = { code: null, lines: [], latchPid: 0, stderr: "" };
  child.stderr.setEncoding("utf8").on("data", (text: string) => (run.stderr += text));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const pid = /^pid (\d+)$/.exec(line);
    if (pid !== null) run.latchPid = Number(pid[1]);
    else run.lines.push(line);
    onLine(line, child.pid ?? 0);
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      process.kill(-(child.pid ?? 0), "SIGKILL");
      if (run.latchPid !== 0) process.kill(run.latchPid, "SIGKILL");
    }, ms);
    child.once("close", (code) => {
      clearTimeout(timer);
      run.code = code;
      resolve(run);
    });
  });
}

/** Whether process `pid` ended within `ms` (exited, or a zombie no one reaps). */
async function ended(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      process.kill(pid, 0);
      const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
      if (/^\d+ \(.*\) Z/.test(stat)) return true;
    } catch {
      return true;
    }
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
}

/** The processes below `pid` (its children, theirs, …), from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // `PID (COMM) STATE PPID …`, where COMM may hold spaces and parentheses.
    const ppid = /^\) \S+ (\d+)/.exec(stat.slice(stat.lastIndexOf(")")));
    if (ppid === null) continue;
    const parent = Number(ppid[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  for (let next = [pid]; next.length > 0; ) {
    next = next.flatMap((p) => children.get(p) ?? []);
    found.push(...next);
  }
  return found;
}

describe("latch's process and this one", () => {
  let project: Project;
  let scratch: string;

  before(async () => {
    project = await makeProject();
    scratch = await mkdtemp(join(tmpdir(), "latch-client-process-"));
  });

  after(async () => {
    await project.cleanup();
    await rm(scratch, { recursive: true, force: true });
  });

  /** A stand-in for latch that writes its pid to a file and never answers. */
  async function mute(name: string): Promise<{ bin: string; pid: () => Promise<number> }> {
    const bin = join(scratch, name);
    const pidFile = join(scratch, `${name}.pid`);
    await writeFile(bin, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 60\n`);
    await chmod(bin, 0o755);
    return { bin, pid: async () => Number(await readFile(pidFile, "utf8")) };
  }

  test("Ctrl-C reaches the harness, which cancels the fire; latch goes on", { timeout: 30_000 }, async () => {
    const run = await runHarness("ctrl-c", project.config, 20_000, (line, group) => {
      // A terminal's Ctrl-C: SIGINT to the whole foreground process group.
      if (line === "ready") setTimeout(() => process.kill(-group, "SIGINT"), 500);
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.lines, ["ready", "cancelled", "proceed"]);
  });

  test("start gives up after startTimeoutMs, and ends the binary", { timeout: 15_000 }, async () => {
    const { bin, pid } = await mute("mute-timeout");
    const started = Date.now();
    await assert.rejects(LatchClient.start({ bin, startTimeoutMs: 300 }), (error: unknown) => {
      assert.ok(error instanceof LatchTimeoutError);
      assert.match(error.message, /did not answer initialize within 300 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    assert.ok(await ended(await pid(), 5000), "the binary still runs");
  });

  test("an AbortSignal aborts start, and ends the binary", { timeout: 15_000 }, async () => {
    const { bin, pid } = await mute("mute-abort");
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("the user gave up")), 300);
    await assert.rejects(LatchClient.start({ bin, signal: controller.signal }), /the user gave up/);
    assert.ok(await ended(await pid(), 5000), "the binary still runs");
    await assert.rejects(
      LatchClient.start({ bin: latchBin(), signal: AbortSignal.abort(new Error("already")) }),
      /already/,
    );
    await assert.rejects(LatchClient.start({ bin: latchBin(), startTimeoutMs: -1 }), RangeError);
  });

  test("an aborted fire rejects after cancelGraceMs when latch stops answering", { timeout: 15_000 }, async () => {
    const latch = await LatchClient.start({ bin: latchBin(), config: project.config, cancelGraceMs: 500 });
    const unexpected: Error[] = [];
    latch.on("protocolError", (error) => unexpected.push(error));
    const pid = latch.pid ?? 0;
    try {
      const controller = new AbortController();
      const fired = latch.fire(
        { event: "tool_before", session_id: "w", tool: { name: "Slow", input: {} } },
        { signal: controller.signal },
      );
      await sleep(300);
      process.kill(pid, "SIGSTOP"); // latch answers nothing any more
      const aborted = Date.now();
      controller.abort();
      await assert.rejects(within(fired, 5000, "an aborted fire on a stopped latch"), (error: unknown) => {
        assert.ok(error instanceof LatchTimeoutError);
        assert.match(error.message, /within 500 ms of its \$\/cancelRequest/);
        return true;
      });
      assert.ok(Date.now() - aborted >= 450);
      // latch answers the cancelled fire once it runs again: that late answer is dropped quietly.
      process.kill(pid, "SIGCONT");
      const next = await latch.fire({ event: "tool_before", session_id: "w", tool: { name: "Bash", input: { command: "ls" } } });
      assert.equal(next.decision, "proceed");
      assert.deepEqual(unexpected, []);
    } finally {
      process.kill(pid, "SIGCONT");
      await latch.close({ timeoutMs: 2000 });
    }
  });

  test("close stops a latch its flow control holds with SIGTERM, which kills the hooks, not with SIGKILL", { timeout: 60_000 }, async () => {
    const latch = await LatchClient.start({ bin: latchBin(), config: project.config });
    const pid = latch.pid ?? 0;
    // Six 14 MiB events of one session, each for a 30 s hook: past 64 MiB of
    // events in flight latch reads nothing more (docs/serve.md#flow-control),
    // so neither the `exit` nor the end of input that close sends reach it.
    const pad = "b".repeat(14 << 20);
    const fires = Array.from({ length: 6 }, () =>
      latch.fire({ event: "tool_before", session_id: "stalled", tool: { name: "Slow", input: { pad } } }).catch(() => undefined),
    );
    let hooks: number[] = [];
    try {
      const deadline = Date.now() + 20_000;
      while ((hooks = await descendants(pid)).length === 0) {
        assert.ok(Date.now() < deadline, "the first hook did not start within 20 s");
        await sleep(50);
      }
      await sleep(2000); // latch reads on, up to its limit
      const info = await latch.close({ timeoutMs: 300 });
      assert.deepEqual(info, { exitCode: 0, signal: null }, "latch exited by itself");
      for (const hook of hooks) assert.ok(await ended(hook, 5000), `hook process ${hook} still runs`);
      await Promise.all(fires);
    } finally {
      for (const hook of hooks) {
        try {
          process.kill(hook, "SIGKILL");
        } catch {
          // ended
        }
      }
    }
  });

  test("listeners that throw stop neither the rest of what latch wrote nor close", { timeout: 30_000 }, async () => {
    const bin = await fakeLatch(
      join(scratch, "throwing.cjs"),
      `(request) => request.method === "initialize"
        ? [result(request, initialized)]
        : request.method === "fire"
          ? [
              notification("latch/asyncResult", { session_id: "t", dialect: "claude", hook: "h", event: "PostToolUse", texts: ["x"] }),
              result(request, { event: "stop", decision: "proceed", runs: [] }),
            ]
          : [result(request, null)]`,
    );
    const run = await runHarness("throwing", {}, 20_000, undefined, bin);
    assert.equal(run.code, 0, `the harness did not end well (a fire or close hung?): ${run.stderr}`);
    // Each exception comes on its own, as the process's uncaughtException.
    assert.deepEqual(run.lines.sort(), [
      'closed {"exitCode":0,"signal":null}',
      "fire proceed",
      "the next asyncResult listener heard it",
      "uncaught from a notification listener",
      "uncaught from an asyncResult listener",
      "uncaught from an exit listener",
    ].sort());
  });

  test("a client never closed lets Node exit once nothing waits, and latch exits with it", { timeout: 30_000 }, async () => {
    const run = await runHarness("idle", project.config, 20_000);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.lines, ["nap proceed", "async PostToolUse"]);
    assert.ok(await ended(run.latchPid, 5000), "latch outlived Node");
  });

  test("a break out of for await over notifications() lets Node exit, and latch with it", { timeout: 30_000 }, async () => {
    const run = await runHarness("break", project.config, 20_000);
    assert.equal(run.code, 0, `killed past 20 s (a listener kept Node running?): ${run.stderr}`);
    assert.deepEqual(run.lines, ["heard latch/asyncResult"]);
    assert.ok(await ended(run.latchPid, 5000), "latch outlived Node");
  });

  test("an event JSON cannot carry leaves no request waiting", { timeout: 30_000 }, async () => {
    const run = await runHarness("unserialisable", project.config, 20_000);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.lines, ["rejected TypeError", "rejected TypeError", "proceed"]);
  });

  test("with the env option, its $LATCH_BIN and PATH find the binary", async () => {
    // This process's $LATCH_BIN (the binary under test) is not the one latch's environment names.
    const saved = process.env["LATCH_BIN"];
    process.env["LATCH_BIN"] = latchBin();
    try {
      await assert.rejects(
        LatchClient.start({ env: { ...process.env, LATCH_BIN: join(scratch, "nope") }, config: project.config }),
        (error: unknown) => error instanceof LatchNotFoundError && error.from === "env" && error.bin.endsWith("nope"),
      );
      const bin = join(scratch, "bin");
      await mkdir(bin);
      await symlink(latchBin(), join(bin, "latch"));
      const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:/usr/bin:/bin` };
      delete env["LATCH_BIN"];
      const latch = await LatchClient.start({ env, config: project.config });
      assert.equal(latch.initializeResult.server.name, "latch");
      await latch.close();
    } finally {
      if (saved === undefined) delete process.env["LATCH_BIN"];
      else process.env["LATCH_BIN"] = saved;
    }
  });
});
