import type { CommandModule } from 'yargs';
import { cliService, type GlobalOptions } from '../context.js';
import { EXIT_FAILURE, printJson, printText } from '../output.js';
import { doctorText } from '../../views/doctor.js';

export const doctorCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'doctor',
  describe: 'Check git, the repository, the brv branch, hooks, agent connectors, the search index and sync; each problem with its fix',
  handler: async (argv) => {
    const report = await (await cliService()).doctor({ cwd: argv.C ?? process.cwd() });
    if (argv.format === 'json') printJson('doctor', report.ok, report);
    else printText(doctorText(report));
    if (!report.ok) process.exitCode = EXIT_FAILURE;
  },
};
