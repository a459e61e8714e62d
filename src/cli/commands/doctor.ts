import type { CommandModule } from 'yargs';
import { cliService, type GlobalOptions, cliCwd } from '../context.js';
import { EXIT_FAILURE, printJson, printText } from '../output.js';
import { doctorText } from '../../views/doctor.js';
import { setExitCode } from '../io.js';

export const doctorCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'doctor',
  describe: 'Check git, the repository, the brv branch, hooks, agent connectors, the search index and sync; each problem with its fix',
  handler: async (argv) => {
    const report = await (await cliService()).doctor({ cwd: cliCwd(argv.C) });
    if (argv.format === 'json') printJson('doctor', report.ok, report);
    else printText(doctorText(report));
    if (!report.ok) setExitCode(EXIT_FAILURE);
  },
};
