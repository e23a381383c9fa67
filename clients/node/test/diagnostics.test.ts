import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
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
  const diagnostic = heard[0]?.diagnostics[0];
  assert.equal(diagnostic?.severity, "warning");
  assert.equal(diagnostic?.dialect, "peen");
  assert.equal(diagnostic?.file, join(workspace, ".agents", "hooks.yaml"));
  assert.match(diagnostic?.message ?? "", /`actions` must be a list/);
});
