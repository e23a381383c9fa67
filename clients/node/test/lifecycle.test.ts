import assert from "node:assert/strict";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  ErrorCode,
  LatchClient,
  LatchClosedError,
  LatchDiedError,
  LatchError,
  LatchNotFoundError,
  LatchRpcError,
  type ExitInfo,
} from "../src/index.js";
import { latchBin, makeProject, within, type Project } from "./fixture.js";

describe("starting and ending latch", () => {
  let project: Project;
  let scratch: string;

  before(async () => {
    project = await makeProject();
    scratch = await mkdtemp(join(tmpdir(), "latch-client-bin-"));
  });

  after(async () => {
    await project.cleanup();
    await rm(scratch, { recursive: true, force: true });
  });

  test("a missing binary is a LatchNotFoundError", async () => {
    await assert.rejects(LatchClient.start({ bin: join(scratch, "no-such-latch") }), (error: unknown) => {
      assert.ok(error instanceof LatchNotFoundError);
      assert.equal(error.from, "option");
      assert.match(error.message, /no-such-latch/);
      return true;
    });
  });

  test("latch missing from PATH is a LatchNotFoundError", async () => {
    const saved = process.env["LATCH_BIN"];
    delete process.env["LATCH_BIN"];
    try {
      await assert.rejects(LatchClient.start({ env: { PATH: scratch } }), (error: unknown) => {
        assert.ok(error instanceof LatchNotFoundError);
        assert.equal(error.from, "path");
        assert.equal(error.bin, "latch");
        return true;
      });
    } finally {
      if (saved !== undefined) process.env["LATCH_BIN"] = saved;
    }
  });

  test("a missing cwd is a LatchError naming the directory, not a LatchNotFoundError", async () => {
    // Node reports a missing working directory as ENOENT, as it does a missing binary.
    const missing = join(scratch, "no-such-dir");
    await assert.rejects(LatchClient.start({ bin: latchBin(), cwd: missing }), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.ok(!(error instanceof LatchNotFoundError), error.message);
      assert.ok(error.message.includes(JSON.stringify(missing)), error.message);
      assert.match(error.message, /working directory .* does not exist/);
      assert.equal((error.cause as NodeJS.ErrnoException | undefined)?.code, "ENOENT");
      return true;
    });
    const file = join(scratch, "a-file");
    await writeFile(file, "");
    await assert.rejects(LatchClient.start({ bin: latchBin(), cwd: file }), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.ok(!(error instanceof LatchNotFoundError), error.message);
      assert.match(error.message, /working directory .*a-file" .*is not a directory/);
      return true;
    });
    // With an existing cwd, a missing binary is still a LatchNotFoundError.
    await assert.rejects(
      LatchClient.start({ bin: join(scratch, "no-such-latch"), cwd: scratch }),
      (error: unknown) => error instanceof LatchNotFoundError && error.from === "option",
    );
  });

  test("$LATCH_BIN is used when no bin is given", async () => {
    const saved = process.env["LATCH_BIN"];
    process.env["LATCH_BIN"] = latchBin();
    try {
      const latch = await LatchClient.start({ config: project.config });
      assert.equal(latch.initializeResult.server.name, "latch");
      assert.deepEqual(await latch.close(), { exitCode: 0, signal: null });
    } finally {
      if (saved === undefined) delete process.env["LATCH_BIN"];
      else process.env["LATCH_BIN"] = saved;
    }
  });

  test("snake_case config keys work too", async () => {
    const { dialects, project: dir, home, claudeManagedDir, stateDir } = project.config;
    const latch = await LatchClient.start({
      bin: latchBin(),
      config: { dialects, project: dir, home, claude_managed_dir: claudeManagedDir, state_dir: stateDir },
    });
    const outcome = await latch.fire({ event: "tool_before", tool: { name: "Bash", input: { command: "rm -rf /" } } });
    assert.equal(outcome.decision, "deny");
    await latch.close();
  });

  test("an unknown config key fails initialize, naming it", async () => {
    await assert.rejects(
      LatchClient.start({ bin: latchBin(), config: { ...project.config, stateDirectory: "/tmp" } as never }),
      (error: unknown) =>
        error instanceof LatchRpcError &&
        error.method === "initialize" &&
        error.code === ErrorCode.InvalidParams &&
        error.rpcMessage.includes("state_directory"),
    );
  });

  test("a binary that dies at once is a LatchDiedError with its exit code and stderr", async () => {
    const fake = join(scratch, "dies");
    await writeFile(fake, "#!/bin/sh\necho 'latch: error: something broke' >&2\nexit 3\n");
    await chmod(fake, 0o755);
    await assert.rejects(LatchClient.start({ bin: fake }), (error: unknown) => {
      assert.ok(error instanceof LatchDiedError);
      assert.equal(error.exitCode, 3);
      assert.equal(error.signal, null);
      assert.match(error.stderrTail, /something broke/);
      assert.match(error.message, /exited with code 3/);
      return true;
    });
  });

  test("a LatchDiedError carries the stderr of a binary that exits at once, every time", { timeout: 60_000 }, async () => {
    // cat fails on the argument `serve`, a file that is not there, and
    // exits 1: its stderr may still be unread when its exit is reported.
    // Several at once, as the race is likelier under load.
    for (let round = 0; round < 4; round++) {
      const starts = Array.from({ length: 5 }, () => LatchClient.start({ bin: "/bin/cat", cwd: scratch }));
      for (const started of await Promise.allSettled(starts)) {
        assert.equal(started.status, "rejected");
        const error: unknown = started.reason;
        assert.ok(error instanceof LatchDiedError, String(error));
        assert.equal(error.exitCode, 1);
        assert.match(error.stderrTail, /serve: No such file or directory/, `round ${round}: ${error.message}`);
        assert.match(error.message, /exited with code 1; stderr:\n.*serve: No such file or directory/);
      }
    }
  });

  test("a killed server fails the fires in flight and every later one", async () => {
    const latch = await LatchClient.start({ bin: latchBin(), config: project.config });
    const exited = new Promise<ExitInfo>((resolve) => latch.once("exit", resolve));
    // A short hook: SIGKILL gives latch no chance to kill it.
    const fired = latch.fire({ event: "tool_before", session_id: "k", tool: { name: "Nap" } });
    setTimeout(() => process.kill(latch.pid ?? 0, "SIGKILL"), 100);
    await assert.rejects(within(fired, 5000, "fire on a killed server"), (error: unknown) => {
      assert.ok(error instanceof LatchDiedError);
      assert.equal(error.signal, "SIGKILL");
      assert.equal(error.exitCode, null);
      return true;
    });
    assert.deepEqual(await exited, { exitCode: null, signal: "SIGKILL" });
    await assert.rejects(latch.fire({ event: "stop" }), LatchDiedError);
    // close() on a dead server returns at once.
    assert.deepEqual(await latch.close(), { exitCode: null, signal: "SIGKILL" });
  });

  test("close lets the fires in flight finish, then latch exits 0", async () => {
    const latch = await LatchClient.start({ bin: latchBin(), config: project.config });
    const fired = latch.fire({ event: "tool_before", session_id: "n", tool: { name: "Nap" } });
    const closed = latch.close();
    const outcome = await fired;
    assert.match(outcome.context?.[0]?.text ?? "", /session=n/);
    assert.deepEqual(await closed, { exitCode: 0, signal: null });
    assert.equal(latch.close(), closed);
    await assert.rejects(latch.fire({ event: "stop" }), LatchClosedError);
  });

  // serve.md: after `shutdown`, `exit` (and the end of input) cancel what still runs.
  test("close past its timeout cancels what still runs", async () => {
    const latch = await LatchClient.start({ bin: latchBin(), config: project.config });
    const fired = latch.fire({ event: "tool_before", session_id: "s", tool: { name: "Lingering" } });
    fired.catch(() => undefined);
    const started = Date.now();
    const info = await latch.close({ timeoutMs: 300 });
    assert.ok(Date.now() - started < 5000, `close took ${Date.now() - started} ms`);
    assert.deepEqual(info, { exitCode: 0, signal: null });
    // The fire either got the cancelled outcome before latch exited, or was failed by close.
    const settled = await fired.then(
      (outcome) => outcome.warnings?.some((w) => w.startsWith("dispatch cancelled")),
      (error: unknown) => error instanceof LatchClosedError,
    );
    assert.ok(settled);
  });

  test("close with timeoutMs Infinity, or past the longest timer, waits for the fires in flight", async () => {
    // setTimeout takes at most 2^31 - 1 ms, and fires at once past it.
    for (const timeoutMs of [Infinity, 2 ** 31]) {
      const latch = await LatchClient.start({ bin: latchBin(), config: project.config });
      const fired = latch.fire({ event: "tool_before", session_id: "forever", tool: { name: "Nap" } });
      const closed = latch.close({ timeoutMs });
      const outcome = await fired;
      assert.match(outcome.context?.[0]?.text ?? "", /session=forever/, `timeoutMs ${timeoutMs}: ${JSON.stringify(outcome)}`);
      assert.deepEqual(await closed, { exitCode: 0, signal: null });
    }
    const latch = await LatchClient.start({ bin: latchBin(), config: project.config });
    for (const timeoutMs of [-1, Number.NaN]) await assert.rejects(latch.close({ timeoutMs }), RangeError);
    assert.deepEqual(await latch.close(), { exitCode: 0, signal: null });
  });

  test("await using closes latch", async () => {
    let pid: number | undefined;
    {
      await using latch = await LatchClient.start({ bin: latchBin(), config: project.config });
      pid = latch.pid;
      await latch.fire({ event: "stop", session_id: "u" });
    }
    assert.throws(() => process.kill(pid ?? 0, 0), { code: "ESRCH" });
  });
});
