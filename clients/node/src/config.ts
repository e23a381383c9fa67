/**
 * The configuration `initialize` takes: `latch fire`'s flags as one object.
 *
 * @module
 */

/** A dialect latch can load. */
export type Dialect = "poolside" | "peen" | "evener" | "claude";

/**
 * The configuration, with camelCase keys. Every key is optional; the
 * defaults are `latch fire`'s. Relative paths are resolved by latch against
 * its working directory (the `cwd` option of {@link LatchClient.start}).
 */
export interface LatchConfig {
  /** `--dialect`: the dialects to load. */
  dialects?: Dialect[] | undefined;
  /** `--project`: the project directory. */
  project?: string | undefined;
  /** `--home`: the home directory whose user-level settings latch reads. */
  home?: string | undefined;
  /** `--settings`. */
  settings?: string | undefined;
  /** `--plugin-dir` (evener plugins). */
  pluginDirs?: string[] | undefined;
  /** `--peen-config-dir`. */
  peenConfigDir?: string | undefined;
  /** `--prompt-base-url`. */
  promptBaseUrl?: string | undefined;
  /** `--prompt-model`. */
  promptModel?: string | undefined;
  /** `--claude-settings`. */
  claudeSettings?: string | undefined;
  /** `--claude-managed-dir`. */
  claudeManagedDir?: string | undefined;
  /** `--claude-hide-commands`. */
  claudeHideCommands?: boolean | undefined;
  /** `--tool-vocabulary`. */
  toolVocabulary?: string | undefined;
  /** `--audit`: what the session's audit log records (docs/audit.md). */
  audit?: "off" | "runs" | "full" | undefined;
  /**
   * `--trust`: `off`, `warn` or `require` for every dialect, or
   * `DIALECT=POLICY` for one (see docs/trust.md).
   */
  trust?: string[] | undefined;
  /** `--state-dir`: where session state lives; async hooks need it. */
  stateDir?: string | undefined;
}

/** The configuration exactly as the wire carries it (snake_case keys). */
export interface WireConfig {
  dialects?: Dialect[] | undefined;
  project?: string | undefined;
  home?: string | undefined;
  settings?: string | undefined;
  plugin_dirs?: string[] | undefined;
  peen_config_dir?: string | undefined;
  prompt_base_url?: string | undefined;
  prompt_model?: string | undefined;
  claude_settings?: string | undefined;
  claude_managed_dir?: string | undefined;
  claude_hide_commands?: boolean | undefined;
  tool_vocabulary?: string | undefined;
  audit?: "off" | "runs" | "full" | undefined;
  trust?: string[] | undefined;
  state_dir?: string | undefined;
}

/** Either spelling; keys of both may be mixed, but not two spellings of one key. */
export type AnyConfig = LatchConfig | WireConfig | (LatchConfig & WireConfig);

/**
 * Turns a configuration into the wire's snake_case. camelCase keys are
 * converted, snake_case keys kept, `undefined` values dropped; unknown keys
 * are passed on, so latch rejects them with an error naming them.
 *
 * @throws TypeError when one key is given in both spellings.
 */
export function toWireConfig(config: AnyConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // The key each wire key was given as, to name both spellings.
  const given = new Map<string, string>();
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    const wire = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const first = given.get(wire);
    if (first !== undefined) {
      throw new TypeError(`latch config: \`${wire}\` is given twice (as \`${first}\` and as \`${key}\`)`);
    }
    given.set(wire, key);
    out[wire] = value;
  }
  return out;
}
