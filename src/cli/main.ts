/**
 * The `listkeeper` command. For people: sign in once to a running service and work with lists
 * and items through the SDK (session-commands.ts, item-commands.ts). For the person who runs the
 * service: accounts, keys, automations, memory, the search index and migrations, on the server's
 * own database, found as the server finds it (admin-*.ts); only the server ever creates one.
 */
import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './admin-accounts.js';
import { registerServiceCommands } from './admin-service.js';
import { registerWorkspaceCommands } from './admin-workspace.js';
import { registerCompletion } from './completion.js';
import { registerDataCommands } from './data-commands.js';
import { registerItemCommands } from './item-commands.js';
import { CliError } from './output.js';
import { describeServiceError } from './service-client.js';
import { registerSessionCommands } from './session-commands.js';
import { packageVersion } from './version.js';

const version = packageVersion();
const program = new Command();
program
  .name('listkeeper')
  .description('Your lists from the terminal, and the administration of a listkeeper service.')
  .version(version, '-v, --version', 'print the version')
  .showHelpAfterError();

program.commandsGroup('Your lists, on a running service (sign in first with login):');
registerSessionCommands(program, version);
const search = registerItemCommands(program);
registerDataCommands(program);
program.commandsGroup("Running the service (on the server's database; run where the server runs):");
registerAccountCommands(program);
registerWorkspaceCommands(program);
registerServiceCommands(program, search);
program.commandsGroup('Other:');
registerCompletion(program);
program.helpCommand(true);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  const message = describeServiceError(err) ?? (err instanceof Error ? err.message : String(err));
  process.stderr.write(`listkeeper: ${message}\n`);
  process.exit(err instanceof CliError ? err.exitCode : 1);
});
