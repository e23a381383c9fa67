/**
 * Test fixtures: a throw-away claude project with real hook scripts, the
 * binary under test (`$LATCH_BIN`), and a stand-in for it.
 */

import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LatchConfig } from "../src/index.js";

/** The latch binary under test. */
export function latchBin(): string {
  const bin = process.env["LATCH_BIN"];
  if (bin === undefined || bin === "") throw new Error("set LATCH_BIN to the latch binary under test");
  return bin;
}

/** A temporary claude project: its directory, its config, and a way to remove it. */
export interface Project {
  dir: string;
  config: LatchConfig;
  cleanup(): Promise<void>;
}

const scripts: Record<string, string> = {
  // Denies `rm -rf`; asks about `git push`; rewrites `npm test`, allowing it.
  "guard.sh": `#!/bin/sh
input=$(cat)
case "$input" in
  *'rm -rf'*) echo "Refusing to delete the whole tree." >&2; exit 2 ;;
  *'git push'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"Pushing needs a human."}}' ;;
  *'"npm test"'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"npm test --silent"}}}' ;;
esac
exit 0
`,
  // Takes half a second, then names the session it was fired for.
  "nap.sh": `#!/bin/sh
sid=$(cat | sed -n 's/.*"session_id": *"\\([^"]*\\)".*/\\1/p')
sleep 0.5
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"session=%s"}}\\n' "$sid"
`,
  // Replaces a string tool result.
  "redact.sh": `#!/bin/sh
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"[redacted]"}}'
`,
  // Answers later, in the background.
  "later.sh": `#!/bin/sh
cat >/dev/null
sleep 0.2
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"X"}}'
`,
};

const hook = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: "command",
  command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`,
  ...extra,
});

const settings = {
  hooks: {
    PreToolUse: [
      { matcher: "Bash", hooks: [hook("guard.sh")] },
      { matcher: "Nap", hooks: [hook("nap.sh")] },
      { matcher: "Slow", hooks: [{ type: "command", command: "sleep 30" }] },
      { matcher: "Lingering", hooks: [{ type: "command", command: "sleep 5" }] },
    ],
    PostToolUse: [
      { matcher: "Fetch", hooks: [hook("redact.sh")] },
      { matcher: "Write", hooks: [hook("later.sh", { async: true })] },
    ],
  },
};

/** Makes a project with the hooks above, a home, a managed dir and a state dir, all empty but the project. */
export async function makeProject(): Promise<Project> {
  const root = await mkdtemp(join(tmpdir(), "latch-client-"));
  const dir = join(root, "project");
  const hooks = join(dir, ".claude", "hooks");
  await mkdir(hooks, { recursive: true });
  await mkdir(join(root, "home"));
  await mkdir(join(root, "managed"));
  await writeFile(join(dir, ".claude", "settings.json"), JSON.stringify(settings, null, 2));
  for (const [name, text] of Object.entries(scripts)) {
    await writeFile(join(hooks, name), text);
    await chmod(join(hooks, name), 0o755);
  }
  return {
    dir,
    config: {
      dialects: ["claude"],
      project: dir,
      home: join(root, "home"),
      claudeManagedDir: join(root, "managed"),
      stateDir: join(root, "state"),
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Rejects after `ms` milliseconds, naming what did not happen. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A stand-in for `latch serve`, for what the real one does not do on demand
 * (say, a notification in the same write as an answer): a Node script
 * written at `path` (ending in `.cjs`) that answers each request with the
 * messages `answer` returns, all in one write. `answer` is the source of a
 * function of the request, which may use `result(request, value)`,
 * `notification(method, params)` and `initialized` (an `initialize`
 * result). It exits on `exit` and at the end of its input.
 */
export async function fakeLatch(path: string, answer: string): Promise<string> {
  await writeFile(
    path,
    `#!${process.execPath}
const { createInterface } = require("node:readline");
const result = (request, value) => ({ jsonrpc: "2.0", id: request.id, result: value });
const notification = (method, params) => ({ jsonrpc: "2.0", method, params });
const initialized = { server: { name: "latch", version: "0.0.0" }, dialects: ["claude"], diagnostics: [] };
const answer = ${answer};
createInterface({ input: process.stdin })
  .on("line", (line) => {
    const request = JSON.parse(line);
    if (request.method === "exit") process.exit(0);
    if (!("id" in request)) return;
    process.stdout.write(answer(request).map((message) => JSON.stringify(message) + "\\n").join(""));
  })
  .on("close", () => process.exit(0));
`,
  );
  await chmod(path, 0o755);
  return path;
}
