import type { CommandModule } from 'yargs';
import { curateCommand } from './curate.js';
import { importCommand } from './import.js';
import { initCommand } from './init.js';
import { lsCommand } from './ls.js';
import { queryCommand } from './query.js';
import { readCommand } from './read.js';
import { rmCommand } from './rm.js';
import { searchCommand } from './search.js';
import { statusCommand } from './status.js';

/** Every top-level command, in the order `--help` lists them. Handlers import their code lazily. */
export const commands = [
  initCommand,
  statusCommand,
  curateCommand,
  queryCommand,
  searchCommand,
  readCommand,
  lsCommand,
  rmCommand,
  importCommand,
] as unknown as CommandModule[];
