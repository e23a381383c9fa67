import assert from "node:assert/strict";
import { test } from "node:test";
import { toWireConfig } from "../src/index.js";

test("camelCase keys become snake_case, snake_case keys stay", () => {
  assert.deepEqual(
    toWireConfig({
      dialects: ["claude"],
      stateDir: "/s",
      claudeManagedDir: "/m",
      plugin_dirs: ["/p"],
      claudeHideCommands: true,
      home: undefined,
    }),
    { dialects: ["claude"], state_dir: "/s", claude_managed_dir: "/m", plugin_dirs: ["/p"], claude_hide_commands: true },
  );
});

test("one key in both spellings is refused", () => {
  assert.throws(() => toWireConfig({ stateDir: "/a", state_dir: "/b" }), {
    name: "TypeError",
    message: "latch config: `state_dir` is given twice (as `stateDir` and as `state_dir`)",
  });
});
