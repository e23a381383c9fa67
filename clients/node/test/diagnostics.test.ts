import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { LatchClient, type DiagnosticsNotification } from "../src/index.js";
import { latchBin } from "./fixture.js";

test("a configuration loaded after initialize reports its diagnostics as latch/diagnostics", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "latch-client-diag-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const workspace = join(root, "workspace");
  await mkdir(join(workspace, ".agents"), { recursive: true });
  await mkdir(join(root, "home"));
  await mkdir(join(root, "peen"));
  await writeFile(join(workspace, ".agents", "hooks.yaml"), "version: 1\npreToolUse:\n  - name: x\n    actions: nope\n");

  await using latch = await LatchClient.start({
    bin: latchBin(),
    cwd: root,
    config: { dialects: ["peen"], home: join(root, "home"), peenConfigDir: join(root, "peen"), stateDir: join(root, "state") },
  });
  const heard: DiagnosticsNotification[] = [];
  const methods: string[] = [];
  latch.on("diagnostics", (n) => heard.push(n));
  latch.on("notification", (method) => methods.push(method));

  const outcome = await latch.fire({ event: "stop", session_id: "d", cwd: workspace });
  assert.equal(outcome.decision, "proceed");
  assert.deepEqual(methods, ["latch/diagnostics"]);
  assert.equal(heard[0]?.first_load, true);
  assert.equal(heard[0]?.cwd, workspace);
  const diagnostic = heard[0]?.diagnostics[0];
  assert.equal(diagnostic?.severity, "warning");
  assert.equal(diagnostic?.dialect, "peen");
  assert.equal(diagnostic?.file, join(workspace, ".agents", "hooks.yaml"));
  assert.match(diagnostic?.message ?? "", /`actions` must be a list/);
});

test("a broken edit on disk keeps that file's last good version and says so", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "latch-client-reload-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const project = join(root, "project");
  const settings = join(project, ".claude", "settings.json");
  await mkdir(join(project, ".claude"), { recursive: true });
  await mkdir(join(root, "home"));
  const guard = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo no >&2; exit 2" }] }] } };
  await writeFile(settings, JSON.stringify(guard));

  await using latch = await LatchClient.start({
    bin: latchBin(),
    cwd: root,
    config: { dialects: ["claude"], project, home: join(root, "home"), claudeManagedDir: join(root, "managed"), stateDir: join(root, "state") },
  });
  const reloaded = new Promise<DiagnosticsNotification>((resolve) => latch.on("diagnostics", resolve));
  await writeFile(settings, '{"hooks": ');
  const note = await reloaded;
  assert.equal(note.reloaded, true);
  assert.equal(note.first_load, false);
  assert.deepEqual(note.kept, [settings]);
  assert.match(note.reason ?? "", /last good version/);
  assert.equal(note.diagnostics[0]?.file, settings);

  const bash = { event: "tool_before", session_id: "r", tool: { name: "Bash", input: { command: "ls" } } } as const;
  const outcome = await latch.fire(bash);
  assert.equal(outcome.decision, "deny");
});

/**
 * latch started under `trust: ["require"]` on a claude project with one
 * Bash guard (`echo no >&2; exit 2`), in a temporary directory removed
 * after the test.
 */
async function startGuarded(t: TestContext, name: string): Promise<LatchClient> {
  const root = await mkdtemp(join(tmpdir(), `latch-client-${name}-`));
  t.after(() => rm(root, { recursive: true, force: true }));
  const project = join(root, "project");
  await mkdir(join(project, ".claude"), { recursive: true });
  await mkdir(join(root, "home"));
  const guard = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo no >&2; exit 2" }] }] } };
  await writeFile(join(project, ".claude", "settings.json"), JSON.stringify(guard));
  return LatchClient.start({
    bin: latchBin(),
    cwd: root,
    config: { dialects: ["claude"], project, home: join(root, "home"), claudeManagedDir: join(root, "managed"), stateDir: join(root, "state"), trust: ["require"] },
  });
}

test("trust methods list, approve and revoke the project's hooks", async (t) => {
  await using latch = await startGuarded(t, "trust");
  const bash = { event: "tool_before", session_id: "t", tool: { name: "Bash", input: { command: "ls" } } } as const;
  const held = await latch.fire(bash);
  assert.equal(held.runs[0]?.status, "untrusted");
  const hooks = await latch.trustList();
  assert.equal(hooks.length, 1);
  assert.deepEqual(hooks[0]?.trust, { state: "new" });
  await assert.rejects(latch.trustApprove({ hooks: ["nope"] }), /no hook `nope` is loaded/);
  const approved = await latch.trustApprove({ all: true });
  assert.equal(approved[0]?.event, "PreToolUse");
  assert.deepEqual((await latch.trustList())[0]?.trust, { state: "approved" });
  const revoked = await latch.trustRevoke({ hooks: [hooks[0]?.hook ?? ""] });
  assert.equal(revoked.length, 1);
});

test("a trust request with a signal aborted beforehand sends nothing and rejects with its reason", async (t) => {
  await using latch = await startGuarded(t, "trust-abort");
  const signal = AbortSignal.abort(new Error("the user closed the approval prompt"));
  await assert.rejects(latch.trustApprove({ all: true }, { signal }), /closed the approval prompt/);
  // Sent, this one would be refused (no such hook), and nothing would handle that.
  await assert.rejects(latch.trustRevoke({ hooks: ["nope"] }, { signal }), /closed the approval prompt/);
  await assert.rejects(latch.trustList({ signal }), /closed the approval prompt/);
  // latch runs trust requests in the order they came: an approval sent above would show here.
  assert.deepEqual((await latch.trustList())[0]?.trust, { state: "new" });
});
