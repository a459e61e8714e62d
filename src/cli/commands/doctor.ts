import { cliService, cliCwd } from '../context.js';
import { EXIT_FAILURE, printJson, printText } from '../output.js';
import { doctorText } from '../../views/doctor.js';
import { setExitCode } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

export const doctorCommand = tableCommand(declaration('doctor'), {
  handler: async (argv) => {
    const report = await (await cliService()).doctor({ cwd: cliCwd(argv.C) });
    if (argv.format === 'json') printJson('doctor', report.ok, report);
    else printText(doctorText(report));
    if (!report.ok) setExitCode(EXIT_FAILURE);
  },
});
