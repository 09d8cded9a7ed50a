// Support for the real-cluster suite (e2e/kubernetes.cluster.e2e.test.ts): the kubectl and helm
// binaries the project checks (scripts/kubectl.sh, scripts/helm.sh), a command runner with the
// test cluster's kubeconfig, a ServiceAccount kubeconfig from a TokenRequest, the operator as a
// real process, and a kubelet stand-in for server pods.
//
// The control plane (scripts/k8s-testenv.sh) has no kubelet: kwok marks Pods Running with a
// loopback IP (127.0.10.x) but runs nothing. PodKubelet fills that gap for Veil's server pods:
// for one Pod it projects every ConfigMap and Secret volume into a sandbox exactly as the kubelet
// does (VolumeProjector: ..data symlink swaps, following the object through a watch), resolves
// the container's environment from the Pod spec (Secret keys, field refs, $(VAR) references),
// and runs the real `veil serve` on the Pod's IP and container port, with the container paths
// mapped into the sandbox. What it cannot stand in for is named where it is replaced: cluster
// DNS for Services (a host:port map) and the NER sidecar (detector mode builtin).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { KubeClient } from '../../operator/src/kube/client.js';
import type { KubeObject, Secret } from '../../operator/src/kube/types.js';
import { VolumeProjector } from '../../operator/src/render/volume.js';
import { ROOT, startVeil, type ServerProcess } from './server.js';

export const KUBECONFIG = process.env.VEIL_E2E_KUBECONFIG ?? '';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The path of a checked tool, or why it cannot be had (scripts/<tool>.sh exits 2 with a reason). */
export async function locateTool(tool: 'kubectl' | 'helm'): Promise<string> {
  const result = await run('bash', [join(ROOT, 'scripts', `${tool}.sh`)], { timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`${tool} is not available: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** Run a command; never throws for a non-zero exit (the caller asserts on the result). */
export function run(command: string, args: readonly string[], options: { input?: string; env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(command, [...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1;
      resolve({ code, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

export interface Tools {
  readonly kubectl: string;
  readonly helm: string;
  /** Environment for both: the test cluster, and Helm's state in a private directory. */
  readonly env: Record<string, string>;
}

export async function clusterTools(): Promise<Tools> {
  const [kubectl, helm] = await Promise.all([locateTool('kubectl'), locateTool('helm')]);
  const helmHome = mkdtempSync(join(tmpdir(), 'veil-helm-'));
  // The checked binaries carry their version in the file name; documented commands say `kubectl` and `helm`.
  const bin = join(helmHome, 'bin');
  mkdirSync(bin);
  symlinkSync(kubectl, join(bin, 'kubectl'));
  symlinkSync(helm, join(bin, 'helm'));
  return {
    kubectl,
    helm,
    env: {
      KUBECONFIG,
      HELM_CACHE_HOME: join(helmHome, 'cache'),
      HELM_CONFIG_HOME: join(helmHome, 'config'),
      HELM_DATA_HOME: join(helmHome, 'data'),
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    },
  };
}

/** A kubeconfig for a ServiceAccount: the test cluster's server and CA, a token from the TokenRequest API. */
export async function serviceAccountKubeconfig(tools: Tools, namespace: string, serviceAccount: string): Promise<string> {
  const token = await run(tools.kubectl, ['create', 'token', serviceAccount, '-n', namespace, '--duration', '2h'], { env: tools.env });
  if (token.code !== 0) throw new Error(`kubectl create token failed: ${token.stderr}`);
  const admin = parse(readFileSync(KUBECONFIG, 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
  const cluster = admin.clusters[0]!.cluster;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server: cluster['server'], 'certificate-authority-data': cluster['certificate-authority-data'] } }],
    users: [{ name: serviceAccount, user: { token: token.stdout.trim() } }],
    contexts: [{ name: serviceAccount, context: { cluster: 'test', user: serviceAccount, namespace } }],
    'current-context': serviceAccount,
  });
}

// ---------------------------------------------------------------------------------------------
// Processes

export interface RunningProcess {
  readonly child: ChildProcess;
  readonly logs: string[];
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/** Start `node operator/dist/main.js` and wait for its startup log line. */
export async function startOperatorProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<RunningProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'operator', 'dist', 'main.js')], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`operator did not start:\n${logs.join('\n')}`)), timeoutMs);
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        logs.push(line);
        if (line.includes('"msg":"veil-operator started"')) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`operator exited with ${String(code)}:\n${logs.join('\n')}`));
    });
  });
  return { child, logs, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve(child.exitCode);
      return;
    }
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------------
// Kubelet stand-in for server pods

type Obj = Record<string, any>;

/** A container's environment as the kubelet builds it: Secret and ConfigMap keys, field refs, then $(VAR). */
export async function resolveContainerEnv(client: KubeClient, pod: KubeObject, container: Obj): Promise<Record<string, string>> {
  const namespace = pod.metadata.namespace!;
  const env: Record<string, string> = {};
  for (const variable of (container['env'] ?? []) as Obj[]) {
    const from = variable['valueFrom'] as Obj | undefined;
    let value: string;
    if (from?.['secretKeyRef'] !== undefined) {
      const ref = from['secretKeyRef'] as { name: string; key: string };
      const secret = await client.get<Secret>('Secret', namespace, ref.name);
      const raw = secret?.data?.[ref.key];
      if (raw === undefined) throw new Error(`env ${String(variable['name'])}: Secret ${ref.name} key ${ref.key} not found`);
      value = Buffer.from(raw, 'base64').toString('utf8');
    } else if (from?.['fieldRef'] !== undefined) {
      const path = String(from['fieldRef']['fieldPath']);
      value = path === 'metadata.name' ? pod.metadata.name : path === 'metadata.namespace' ? namespace : path === 'status.podIP' ? String((pod.status as Obj | undefined)?.['podIP']) : '';
    } else {
      value = String(variable['value'] ?? '').replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
    }
    env[String(variable['name'])] = value;
  }
  return env;
}

export interface PodKubeletOptions {
  readonly client: KubeClient;
  readonly pod: KubeObject;
  /** Service host:port -> where it really listens (cluster DNS and kube-proxy stand-in). */
  readonly services?: Readonly<Record<string, string>>;
  /** Extra environment, applied last (what cannot run here, e.g. the NER sidecar). */
  readonly overrides?: Readonly<Record<string, string>>;
}

/** Runs one server Pod: projected volumes in a sandbox, the real `veil serve` on the Pod IP. */
export class PodKubelet {
  readonly sandbox = mkdtempSync(join(tmpdir(), 'veil-pod-'));
  readonly #projectors: VolumeProjector[] = [];
  server: ServerProcess | undefined;

  constructor(private readonly options: PodKubeletOptions) {}

  get podIP(): string {
    return String((this.options.pod.status as Obj | undefined)?.['podIP']);
  }

  #map(path: string): string {
    return join(this.sandbox, path);
  }

  async start(): Promise<ServerProcess> {
    const { client, pod } = this.options;
    const spec = pod['spec'] as Obj;
    const container = (spec['containers'] as Obj[])[0]!;
    const volumes = new Map(((spec['volumes'] ?? []) as Obj[]).map((volume) => [String(volume['name']), volume]));
    const mountPaths: string[] = [];
    for (const mount of (container['volumeMounts'] ?? []) as Obj[]) {
      const volume = volumes.get(String(mount['name']));
      const dir = this.#map(String(mount['mountPath']));
      mountPaths.push(String(mount['mountPath']));
      mkdirSync(dir, { recursive: true });
      const source = volume?.['configMap'] !== undefined ? { kind: 'ConfigMap' as const, name: String(volume['configMap']['name']) } : volume?.['secret'] !== undefined ? { kind: 'Secret' as const, name: String(volume['secret']['secretName']) } : undefined;
      if (source === undefined) continue; // emptyDir or a claim: a plain directory
      const projector = new VolumeProjector({ client, kind: source.kind, namespace: pod.metadata.namespace!, name: source.name, dir });
      this.#projectors.push(projector);
      await projector.start();
    }
    // Container paths in the config and the environment point into the sandbox (one pass, so a
    // mapped path is never mapped again; longest mount first).
    const pattern = new RegExp(`(?<![\\w./-])(${[...mountPaths].sort((a, b) => b.length - a.length).map((path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?=/|$|[^\\w.-])`, 'g');
    const remap = (text: string): string => (mountPaths.length === 0 ? text : text.replace(pattern, (path) => this.#map(path)));
    const env = await resolveContainerEnv(client, pod, container);
    for (const [name, value] of Object.entries(env)) {
      let mapped = remap(value);
      for (const [from, to] of Object.entries(this.options.services ?? {})) mapped = mapped.split(from).join(to);
      env[name] = mapped;
    }
    const configPath = env['VEIL_CONFIG'];
    if (configPath !== undefined) {
      // The projected config keeps the container's paths; a copy with sandbox paths is served.
      const config = remap(readFileSync(configPath, 'utf8'));
      const copy = join(this.sandbox, 'veil.yaml');
      writeFileSync(copy, config);
      env['VEIL_CONFIG'] = copy;
    }
    const port = String(((container['ports'] ?? []) as Obj[])[0]?.['containerPort'] ?? 3000);
    this.server = await startVeil({ env: { ...env, ...this.options.overrides }, args: ['--host', this.podIP, '--port', port], timeoutMs: 60_000 });
    return this.server;
  }

  async stop(): Promise<void> {
    for (const projector of this.#projectors) projector.stop();
    await this.server?.stop();
    rmSync(this.sandbox, { recursive: true, force: true });
  }
}

/** The ```sh blocks of one Markdown section (`## Title`), as commands: continuations joined, comments and blank lines dropped. */
export function sectionCommands(markdown: string, title: string): string[] {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`section "${title}" not found`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const commands: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let pending = '';
    for (const raw of block[1]!.split('\n')) {
      // A trailing `  # comment` is dropped unless a quote precedes it (then it is data).
      const hash = raw.search(/\s#\s/);
      const line = (hash >= 0 && !/['"]/.test(raw.slice(0, hash)) ? raw.slice(0, hash) : raw).trimEnd();
      if (line.trim() === '' || line.trim().startsWith('#')) continue;
      if (line.endsWith('\\')) {
        pending += `${line.slice(0, -1).trim()} `;
        continue;
      }
      commands.push((pending + line.trim()).trim());
      pending = '';
    }
  }
  return commands;
}
