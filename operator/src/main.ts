// veil-operator entry point: start the operator process and shut it down gracefully on
// SIGTERM/SIGINT (finish reconciles in flight, release the leader lease), with a hard deadline
// below the chart's terminationGracePeriodSeconds.
import { describeError, jsonLogger } from './controllers/runtime.js';
import { SettingsError, StartupError, startOperatorProcess } from './process.js';

const SHUTDOWN_DEADLINE_MS = 25_000;

async function main(): Promise<void> {
  const logger = jsonLogger();
  let running;
  try {
    running = await startOperatorProcess({ env: process.env, logger });
  } catch (error) {
    if (error instanceof SettingsError) {
      for (const problem of error.problems) process.stderr.write(`veil-operator: ${problem}\n`);
      process.exit(2);
    }
    logger.error('veil-operator failed to start', { error: error instanceof StartupError ? error.message : describeError(error) });
    process.exit(1);
  }
  const shutdown = (signal: string): void => {
    logger.info('shutting down', { signal });
    setTimeout(() => {
      logger.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error: describeError(error) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

void main();
