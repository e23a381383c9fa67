/**
 * The package as a harness takes it, by its name: its `exports`, and its
 * declarations (dist/, built by `npm test` before the tests run) under a
 * TypeScript that loads no `@types/*` package unasked.
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";

/** The package's directory (this file runs from build-test/test/). */
const PACKAGE = fileURLToPath(new URL("../../", import.meta.url));

describe("the package, by its name", () => {
  let scratch: string;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "latch-client-package-"));
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  test("require() finds it: `exports` has a condition besides `import`", () => {
    // A package may name itself from its own files: the build resolves as a harness's would.
    const require = createRequire(import.meta.url);
    assert.equal(require.resolve("@latch/client"), join(PACKAGE, "dist", "index.js"));
    if (process.features.require_module) {
      const loaded = require("@latch/client") as typeof import("../src/index.js");
      assert.equal(typeof loaded.LatchClient, "function");
    }
  });

  test("its declarations type-check without `types: [\"node\"]` or a disposable lib", { timeout: 120_000 }, async () => {
    // TypeScript 6 and later load no @types package unless told (as `types: []` does
    // here, with this package's TypeScript): the declarations must reference Node's
    // types, and the lib of `AsyncDisposable`, themselves.
    const app = join(scratch, "app");
    await mkdir(join(app, "node_modules", "@latch"), { recursive: true });
    await symlink(PACKAGE, join(app, "node_modules", "@latch", "client"));
    await writeFile(join(app, "package.json"), '{"name":"app","private":true,"type":"module"}\n');
    await writeFile(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          lib: ["es2022"],
          types: [],
          skipLibCheck: false,
        },
        files: ["app.ts"],
      }),
    );
    await writeFile(
      join(app, "app.ts"),
      `import { LatchClient, LatchDiedError, type ExitInfo, type StartOptions } from "@latch/client";
const options: StartOptions = { env: { PATH: "/usr/bin" }, config: { dialects: ["claude"] } };
const latch: AsyncDisposable = await LatchClient.start(options);
const died = (error: unknown): string | null => (error instanceof LatchDiedError ? error.signal : null);
const info: ExitInfo | undefined = (latch as LatchClient).exitInfo;
export { died, info };
`,
    );
    const tsc = join(PACKAGE, "node_modules", "typescript", "bin", "tsc");
    const run = await promisify(execFile)(process.execPath, [tsc, "-p", app]).then(
      () => ({ code: 0, stdout: "" }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "" }),
    );
    assert.deepEqual(run, { code: 0, stdout: "" });
  });
});
