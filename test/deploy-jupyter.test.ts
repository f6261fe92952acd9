import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { SETTINGS } from '../src/config/settings.js';
import { composeDefault, readDockerfile } from './support/dockerfile.js';

/**
 * The Jupyter Server that NotebookRun's kernels run in, as deployed beside sidefile: the image
 * (deploy/jupyter), the compose service and the agent-sandbox workload agree with sidefile's
 * settings on the URL, the port, the shared token file, the workspace path and the user.
 */
type Json = Record<string, any>;
const run = promisify(execFile);
const read = (file: string) => readFileSync(file, 'utf8');
const JUPYTER = 'deploy/jupyter';
const image = readDockerfile(`${JUPYTER}/Dockerfile`);
const compose = parse(read('docker-compose.yml')) as { services: Record<string, Json>; secrets: Record<string, { file: string }> };
const service = (name: string): Json => compose.services[name]!;
const [sidefile, jupyter, agent] = [service('sidefile'), service('jupyter'), service('agent')];
const cmd = JSON.parse(image.instructions('CMD').pop()!) as string[];
const option = (args: string[], name: string) => args.find((a) => a.startsWith(`--ServerApp.${name}=`))?.split('=')[1];
const knownEnv = new Set<string>(Object.values(SETTINGS).map((s) => s.env));

describe('deploy/jupyter image', () => {
  it("installs Debian's jupyter-server and ipykernel and copies only files that exist", () => {
    const run = image.instructions('RUN').join('\n');
    expect(run).toMatch(/apt-get install -y --no-install-recommends jupyter-server python3-ipykernel/);
    const sources = image.instructions('COPY').flatMap((c) => c.split(/\s+/).slice(0, -1));
    expect(sources).toEqual(['jupyter_server_config.py']);
    for (const source of sources) expect(existsSync(path.join(JUPYTER, source)), source).toBe(true);
    expect(image.instructions('COPY')[0]).toMatch(/ \/etc\/jupyter\/jupyter_server_config\.py$/);
  });

  it("runs as uid 1000 like sidefile's image, serving /workspace on 8888 of every interface", () => {
    expect(image.instructions('USER')).toEqual(['1000:1000']);
    expect(readDockerfile('Dockerfile').instructions('USER')).toEqual(['1000:1000']);
    expect(cmd[0]).toBe('jupyter-server');
    expect([option(cmd, 'ip'), option(cmd, 'port'), option(cmd, 'root_dir')]).toEqual(['0.0.0.0', '8888', '/workspace']);
    expect(image.instructions('EXPOSE')).toEqual(['8888']);
  });
});

describe('docker-compose.yml: the jupyter service', () => {
  it('builds deploy/jupyter with its base image as an argument the Dockerfile declares, defaulting alike', () => {
    expect(existsSync(path.join(jupyter.build.context, jupyter.build.dockerfile))).toBe(true);
    expect(path.normalize(jupyter.build.context)).toBe(JUPYTER);
    expect(Object.keys(jupyter.build.args)).toEqual(Object.keys(image.globalArgs));
    for (const [arg, value] of Object.entries(jupyter.build.args as Record<string, string>))
      expect(composeDefault(value), arg).toBe(image.globalArgs[arg]);
    expect(jupyter.user).toBe('1000:1000');
  });

  it('is what sidefile is pointed at: its service name and port, the workspace at the same path', () => {
    const url = new URL(sidefile.environment.SIDEFILE_JUPYTER_URL as string);
    expect(url.hostname in compose.services && url.hostname).toBe('jupyter');
    expect(url.port).toBe(option(cmd, 'port'));
    expect(jupyter.volumes).toContain(`workspace:${option(cmd, 'root_dir')}`);
    expect(sidefile.volumes).toContain('workspace:/workspace');
    expect(jupyter.ports).toBeUndefined(); // only sidefile reaches it, on the compose network
  });

  it('shares one token secret between sidefile and the Jupyter Server only', () => {
    expect(sidefile.environment.SIDEFILE_JUPYTER_TOKEN_FILE).toBe('/run/secrets/jupyter_token');
    expect(jupyter.environment.JUPYTER_TOKEN_FILE).toBe('/run/secrets/jupyter_token');
    expect(jupyter.secrets).toEqual(['jupyter_token']);
    expect(agent.secrets).not.toContain('jupyter_token');
    expect(compose.secrets.jupyter_token!.file).toMatch(/jupyter-token/);
    expect(read('docker-compose.yml')).not.toMatch(/JUPYTER_TOKEN:/);
  });

  it('sets on sidefile only environment variables sidefile knows', () => {
    const names = Object.keys(sidefile.environment as Json).filter((n) => n.startsWith('SIDEFILE_'));
    expect(names).toContain('SIDEFILE_JUPYTER_URL');
    for (const name of names) expect(knownEnv.has(name), name).toBe(true);
  });

  it('carries the same healthcheck in the compose file and the image: /api, which needs no token', () => {
    const script = /^python3 -c "([^"$`\\]*)"$/.exec(jupyter.healthcheck.test as string)?.[1];
    expect(script, 'python3 -c "<script>", nothing the shell would expand').toBeDefined();
    const check = image.instructions('HEALTHCHECK')[0]!;
    expect(JSON.parse(check.slice(check.indexOf('CMD ') + 4))).toEqual(['python3', '-c', script]);
    expect(script).toContain(`http://127.0.0.1:${option(cmd, 'port')}/api'`);
  });
});

describe('deploy/agent-sandbox: the workload runs the Jupyter Server', () => {
  const docs = ['sandbox-template.yaml', 'secrets.example.yaml'].flatMap((f) =>
    parseAllDocuments(read(`deploy/agent-sandbox/${f}`)).map((d) => d.toJS() as Json),
  );
  const pod = docs.find((d) => d.kind === 'SandboxTemplate')!.spec.podTemplate.spec as Json;
  const container = (name: string): Json => (pod.containers as Json[]).find((c) => c.name === name)!;
  const workload = container('workload');
  const side = container('sidefile');
  const flag = (name: string) => (side.args as string[]).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  /** The Secret name and key a file path in a container comes from. */
  const secretOf = (c: Json, file: string): [string, string] => {
    const mount = (c.volumeMounts as Json[]).find((m) => file.startsWith(`${m.mountPath}/`))!;
    expect(mount.readOnly, `${c.name}: ${file}`).toBe(true);
    const volume = (pod.volumes as Json[]).find((v) => v.name === mount.name)!;
    return [volume.secret.secretName as string, file.slice(mount.mountPath.length + 1)];
  };

  it('on the loopback of the pod, serving /workspace, on the port sidefile is given', () => {
    const args = workload.command as string[];
    expect(args[0]).toBe('jupyter-server');
    expect(option(args, 'ip')).toBe('127.0.0.1');
    expect(flag('jupyter-url')).toBe(`http://127.0.0.1:${option(args, 'port')}`);
    expect(option(args, 'root_dir')).toBe('/workspace');
    expect((workload.volumeMounts as Json[]).find((m) => m.mountPath === '/workspace')!.name).toBe(
      (side.volumeMounts as Json[]).find((m) => m.mountPath === '/workspace')!.name,
    );
    expect(workload.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false });
  });

  it('with its token from the same Secret key sidefile reads, a Secret apart from sidefile’s own token', () => {
    const env = Object.fromEntries((workload.env as Json[]).map((e) => [e.name, e.value]));
    const fromWorkload = secretOf(workload, env.JUPYTER_TOKEN_FILE as string);
    expect(secretOf(side, flag('jupyter-token-file')!)).toEqual(fromWorkload);
    expect(fromWorkload[0]).not.toBe(secretOf(side, flag('token-file')!)[0]);
    const secret = docs.find((d) => d.kind === 'Secret' && d.metadata.name === fromWorkload[0])!;
    expect(Object.keys(secret.stringData)).toContain(fromWorkload[1]);
    expect(secret.stringData[fromWorkload[1]]).not.toMatch(/\s$/);
    for (const name of ['jupyter-url', 'jupyter-token-file']) expect(name in SETTINGS, name).toBe(true);
  });
});

/** The Python that runs `jupyter-server` (its shebang's), which loads the config file; or null. */
function jupyterPython(): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/bin']) {
    const bin = path.join(dir, 'jupyter-server');
    if (!existsSync(bin)) continue;
    const shebang = /^#!\s*(\S+)/.exec(readFileSync(bin, 'utf8').split('\n', 1)[0]!)?.[1];
    if (shebang) return shebang;
  }
  return null;
}
const python = jupyterPython();

/** Runs deploy/jupyter's config file the way Jupyter loads it, with `c` a traitlets Config. */
async function loadConfig(env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  const script = [
    'import sys',
    'from traitlets.config import Config',
    'c = Config()',
    'exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), {"c": c})',
    'from jupyter_server.services.kernels.handlers import ZMQChannelsHandler',
    'print(repr(c.ServerApp.token), ZMQChannelsHandler.open.__name__)',
  ].join('\n');
  return run(python!, ['-c', script, path.join(JUPYTER, 'jupyter_server_config.py')], { env: { PATH: process.env.PATH, ...env } }).then(
    (r) => ({ code: 0, out: r.stdout.trim() }),
    (e: { code: number; stderr: string }) => ({ code: e.code, out: e.stderr.trim() }),
  );
}

describe.skipIf(python === null)('deploy/jupyter/jupyter_server_config.py, loaded by the Python of jupyter-server 1.x', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sidefile-jupyter-config-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('takes the token from JUPYTER_TOKEN_FILE with trailing whitespace stripped, as sidefile does, and sets no-delay on kernel channels', async () => {
    const file = path.join(dir, 'token');
    await writeFile(file, 'abc123\n');
    expect(await loadConfig({ JUPYTER_TOKEN_FILE: file })).toEqual({ code: 0, out: "'abc123' open_without_nagle" });
  });

  it('refuses to start without a token file, or with an empty one', async () => {
    const none = await loadConfig({});
    expect(none.code).toBe(1);
    expect(none.out).toContain('JUPYTER_TOKEN_FILE is not set');
    const file = path.join(dir, 'empty');
    await writeFile(file, '\n');
    const empty = await loadConfig({ JUPYTER_TOKEN_FILE: file });
    expect(empty.code).toBe(1);
    expect(empty.out).toContain('is empty');
  });
});
