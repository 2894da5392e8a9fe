#!/usr/bin/env node
/**
 * The `adx` command line (commander): thin commands over the library, no business logic.
 *   adx serve            the exchange (env: PORT, HOST, DATABASE_URL, ADX_* ; see README);
 *                        --workers N|auto runs N processes on one port (node cluster)
 *   adx migrate          apply the store's migrations
 *   adx dsp-sim          a simulated OpenRTB 2.5 DSP
 *   adx webhook-receiver a receiver that verifies signed deliveries
 *   adx demo             exchange + simulated DSPs + traffic, then a summary
 */
import { Command } from 'commander';
import { registerDemoCommand } from './demo.js';
import { registerDspSimCommand } from './dsp-sim.js';
import { registerWebhookReceiverCommand } from './webhook-receiver.js';
import { migrate, parseWorkers, serve } from '../main.js';

const program = new Command();
program.name('adx').description('adx: an OpenRTB 2.5 ad exchange');

program
  .command('serve')
  .description('run the exchange (configuration from the environment and ADX_CONFIG)')
  .option('--port <port>', 'TCP port (overrides PORT)')
  .option('--workers <n>', 'exchange processes sharing the port (node cluster): a number, or auto for one per CPU', '1')
  .action(async (options: { port?: string; workers?: string }) => {
    let workers: number;
    try {
      workers = parseWorkers(options.workers);
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(2);
    }
    await serve(options.port ? { PORT: options.port } : {}, { workers });
  });

program
  .command('migrate')
  .description('apply the store migrations to DATABASE_URL and exit')
  .action(async () => {
    await migrate();
  });

registerDspSimCommand(program);
registerWebhookReceiverCommand(program);
registerDemoCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
