/**
 * The environment of a process a test starts (the service, its command line, a script): the
 * machine's own, with every setting listkeeper reads taken out, then the test's `settings`.
 * A shell where the person also runs the service has BASE_URL, PORT, LISTKEEPER_DATA_DIR or
 * DATABASE_URL set; a child that inherited them would sign upload addresses for that other
 * service, write into its data folder or use its database.
 */
import { settingNames } from '../../src/core/config.js';

/** What the service and the command line read from the environment besides the settings of src/core/config.ts. */
const OTHER_NAMES = ['LISTKEEPER_URL', 'LISTKEEPER_KEY', 'OTEL_SDK_DISABLED', 'OTEL_SERVICE_NAME'];
const OTHER_PREFIXES = ['OTEL_EXPORTER_OTLP_'];

/** Whether `name` is something a listkeeper process reads (and so a test must set, not inherit). */
export function isListkeeperSetting(name: string): boolean {
  return SETTINGS.has(name) || OTHER_NAMES.includes(name) || OTHER_PREFIXES.some((prefix) => name.startsWith(prefix));
}

const SETTINGS = new Set(settingNames());

/**
 * `process.env` without any listkeeper setting, plus `settings` (an `undefined` value leaves
 * the name out). NODE_OPTIONS is cleared: jest's own flags are not the child's.
 */
export function childEnv(settings: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!isListkeeperSetting(name)) env[name] = value;
  env.NODE_OPTIONS = '';
  for (const [name, value] of Object.entries(settings)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
