import type { CommandModule } from 'yargs';
import { connectorsCommand } from './connectors.js';
import { curateCommand } from './curate.js';
import { hooksCommand } from './hooks.js';
import { importCommand } from './import.js';
import { exportCommand } from './export.js';
import { publishCommand } from './publish.js';
import { initCommand } from './init.js';
import { lsCommand } from './ls.js';
import { queryCommand } from './query.js';
import { readCommand } from './read.js';
import { rmCommand } from './rm.js';
import { searchCommand } from './search.js';
import { statusCommand } from './status.js';
import { reviewCommand } from './review.js';
import { vcCommand } from './vc.js';
import { syncCommand } from './vc-remote.js';
import { worktreeCommand } from './worktree.js';
import { sourceCommand } from './source.js';
import { settingsCommand } from './settings.js';
import { hookPromptSubmitCommand } from './hook-prompt-submit.js';
import { mcpCommand } from './mcp.js';
import { doctorCommand } from './doctor.js';
import { editCommand } from './edit.js';
import { completionCommand } from './completion.js';
import { maintenanceCommand } from './maintenance.js';
import { webuiCommand } from './webui.js';
import { tuiCommand } from './tui.js';
import { dreamCommand } from './dream.js';
import { modelCommand, providersCommand } from './providers.js';
import { inTableOrder } from '../table-yargs.js';
import { COMMAND_TABLE } from '../../views/command-table.js';

/** Every top-level command, in the order the command table (and so `--help`) lists them. Handlers import their code lazily. */
export const commands = inTableOrder(COMMAND_TABLE, [
  initCommand,
  statusCommand,
  curateCommand,
  queryCommand,
  searchCommand,
  readCommand,
  lsCommand,
  rmCommand,
  importCommand,
  exportCommand,
  publishCommand,
  vcCommand,
  syncCommand,
  reviewCommand,
  hooksCommand,
  connectorsCommand,
  worktreeCommand,
  sourceCommand,
  settingsCommand,
  hookPromptSubmitCommand,
  mcpCommand,
  doctorCommand,
  editCommand,
  completionCommand,
  maintenanceCommand,
  webuiCommand,
  tuiCommand,
  dreamCommand,
  providersCommand,
  modelCommand,
] as unknown as CommandModule[]);
