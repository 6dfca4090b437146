#!/usr/bin/env node
/**
 * `kubeplane` command line: `kubeplane up` runs the whole control plane in one process.
 */
import { Command, InvalidArgumentError } from 'commander';
import { createLogger } from './logger.js';
import { startCluster } from './cluster.js';

function intArg(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`must be an integer >= ${min}`);
    return n;
  };
}

const program = new Command();
program.name('kubeplane').description('A Kubernetes workload control plane with simulated nodes.');

program
  .command('up')
  .description('start the API server, controllers, scheduler and simulated nodes')
  .option('--nodes <n>', 'simulated nodes', intArg(0), 3)
  .option('--port <port>', 'API server port (0 picks a free one)', intArg(0), 6443)
  .option('--host <host>', 'API server address', '127.0.0.1')
  .option('--data-dir <dir>', 'where the database, token and kubeconfig live', '.kubeplane')
  .option('--datastore <kind>', 'sqlite (persistent) or memory', (v: string) => {
    if (v !== 'sqlite' && v !== 'memory') throw new InvalidArgumentError('must be sqlite or memory');
    return v;
  }, 'sqlite')
  .option('--pod-start-delay <ms>', 'how long a simulated kubelet takes to start a pod, in ms', intArg(0))
  .option('--log-level <level>', 'debug, info, warn or error', 'info')
  .action(async (o: { nodes: number; port: number; host: string; dataDir: string; datastore: 'sqlite' | 'memory'; podStartDelay?: number; logLevel: string }) => {
    const logger = createLogger(o.logLevel);
    const cluster = await startCluster({
      nodes: o.nodes,
      port: o.port,
      host: o.host,
      dataDir: o.dataDir,
      datastore: o.datastore,
      ...(o.podStartDelay === undefined ? {} : { podStartDelayMs: o.podStartDelay }),
      logger,
    });
    process.stdout.write(
      [
        `kubeplane is ready: API server at ${cluster.server}, ${o.nodes} simulated nodes.`,
        '',
        'Use it with kubectl:',
        `  export KUBECONFIG=${cluster.kubeconfigPath}`,
        '  kubectl get nodes',
        '',
        'Press Ctrl-C to stop; state is kept in ' + (o.datastore === 'sqlite' ? o.dataDir : 'memory (lost on exit)') + '.',
        '',
      ].join('\n'),
    );
    let stopping = false;
    const stop = (sig: string): void => {
      if (stopping) process.exit(1);
      stopping = true;
      logger.info({ signal: sig }, 'stopping');
      cluster.stop().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'error while stopping');
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`kubeplane: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
