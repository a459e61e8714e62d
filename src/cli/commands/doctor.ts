import type { CommandModule } from 'yargs';
import type { GlobalOptions } from '../context.js';
import { EXIT_FAILURE, printJson, printText } from '../output.js';
import { cliGitProcesses } from '../stop-git-with-brv.js';
import { doctorText } from '../../views/doctor.js';

export const doctorCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'doctor',
  describe: 'Check git, the repository, the brv branch, hooks, agent connectors, the search index and sync; each problem with its fix',
  handler: async (argv) => {
    const [{ Brv }, { diagnose, checkGit }, { isBrvError }] = await Promise.all([
      import('../../service/brv.js'),
      import('../../doctor/doctor.js'),
      import('../../errors.js'),
    ]);
    let report;
    let brv;
    try {
      brv = await Brv.open(argv.C ?? process.cwd(), { processes: cliGitProcesses() });
      report = await diagnose(brv);
    } catch (error) {
      const message = isBrvError(error) ? error.message : String((error as Error)?.message ?? error);
      report = {
        ok: false,
        checks: [
          await checkGit(cliGitProcesses()),
          { name: 'repository', status: 'fail' as const, message, fix: 'cd into your project, or git init' },
        ],
      };
    } finally {
      brv?.close();
    }
    if (argv.format === 'json') printJson('doctor', report.ok, report);
    else printText(doctorText(report));
    if (!report.ok) process.exitCode = EXIT_FAILURE;
  },
};
