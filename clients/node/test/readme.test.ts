/**
 * The README's harness snippet, compiled and run as written against the real
 * binary: a deny, an ask and a rewrite. (`run-tests.sh` also type-checks it
 * against the packed package.)
 */

import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import type { Json, LatchClient } from "../src/index.js";
import { makeProject } from "./fixture.js";

// build-test/test/ -> the package's root.
const PACKAGE = fileURLToPath(new URL("../../", import.meta.url));

interface Snippet {
  latch: LatchClient;
  callTool(session_id: string, call_id: string, name: string, input: Json): Promise<string>;
}

/** The README's `ts` block, compiled to a module that imports `@latch/client` by name. */
async function compileSnippet(dir: string): Promise<string> {
  const readme = await readFile(join(PACKAGE, "README.md"), "utf8");
  const code = /^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1];
  assert.ok(code !== undefined, "the README has a ts block");
  const { outputText, diagnostics } = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    reportDiagnostics: true,
  });
  assert.deepEqual(diagnostics, []);
  // `@latch/client` is this package (its built dist/), as if installed.
  await mkdir(join(dir, "node_modules", "@latch"), { recursive: true });
  await symlink(PACKAGE, join(dir, "node_modules", "@latch", "client"), "dir");
  const file = join(dir, "snippet.mjs");
  await writeFile(file, outputText);
  return file;
}

test("the README's harness snippet refuses a deny and an ask, and runs a rewrite", async () => {
  const project = await makeProject();
  const dir = await mkdtemp(join(tmpdir(), "latch-client-readme-"));
  const cwd = process.cwd();
  let snippet: Snippet | undefined;
  try {
    const file = await compileSnippet(dir);
    // The harness's own `runTool`, which the snippet calls by name.
    const ran: Json[] = [];
    Object.assign(globalThis, {
      runTool: (name: string, args: Json): Promise<string> => {
        ran.push(args);
        return Promise.resolve(`ran ${name} ${JSON.stringify(args)}`);
      },
    });
    // The snippet starts latch in the project (its `project` default, and
    // `stateDir` relative to it), with the fixture's empty home.
    process.chdir(project.dir);
    process.env["HOME"] = String(project.config.home);
    snippet = (await import(pathToFileURL(file).href)) as Snippet;

    const denied = await snippet.callTool("s1", "c1", "Bash", { command: "rm -rf /" });
    assert.match(denied, /^PreToolUse:Bash hook error: .*Refusing to delete the whole tree/);
    // Claude Code's `ask` has no block notice: the reasons are the result.
    const asked = await snippet.callTool("s1", "c2", "Bash", { command: "git push" });
    assert.equal(asked, "Pushing needs a human.");
    const rewritten = await snippet.callTool("s1", "c3", "Bash", { command: "npm test" });
    assert.equal(rewritten, 'ran Bash {"command":"npm test --silent"}');
    const plain = await snippet.callTool("s1", "c4", "Bash", { command: "ls" });
    assert.equal(plain, 'ran Bash {"command":"ls"}');
    // Only the calls no hook refused ran, with the hook's arguments.
    assert.deepEqual(ran, [{ command: "npm test --silent" }, { command: "ls" }]);
  } finally {
    await snippet?.latch.close();
    process.chdir(cwd);
    await rm(dir, { recursive: true, force: true });
    await project.cleanup();
  }
});
