import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { listenOnLoopback, makeTestApp, type TestApp } from './helpers.js';
import { composeDefault, readDockerfile } from './support/dockerfile.js';

/**
 * docker-compose.yml and the Dockerfile name the same things (build args, base image, files,
 * secrets), and the commands they carry work: the healthcheck runs with the image's `node` and
 * no curl, and the stand-in agents (compose's and the Kubernetes pod's) write through sidefile.
 */
const run = promisify(execFile);
const read = (file: string) => readFileSync(file, 'utf8');
const compose = parse(read('docker-compose.yml')) as {
  services: Record<string, any>;
  secrets: Record<string, { file: string }>;
  volumes: object;
};
const { sidefile, agent } = compose.services;
const { instructions, globalArgs } = readDockerfile('Dockerfile');

describe('docker-compose.yml and the Dockerfile', () => {
  it('build the Dockerfile with the base image as an argument the Dockerfile declares, defaulting alike', () => {
    expect(existsSync(path.join(sidefile.build.context, sidefile.build.dockerfile))).toBe(true);
    for (const arg of Object.keys(sidefile.build.args)) expect(Object.keys(globalArgs), arg).toContain(arg);
    expect(composeDefault(sidefile.build.args.NODE_IMAGE)).toBe(globalArgs.NODE_IMAGE);
    expect(agent.image).toBe(sidefile.build.args.NODE_IMAGE);
  });

  it('copy only files that exist and that .dockerignore lets through', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    const sources = instructions('COPY')
      .filter((c) => !c.startsWith('--from='))
      .flatMap((c) => c.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(source), source).toBe(true);
      expect(ignored, source).not.toContain(source);
    }
    // The image starts the bundle's entry point, which the build script makes from src/server.ts.
    const build = read('scripts/build.mjs');
    const cmd = JSON.parse(instructions('CMD').pop()!) as string[];
    expect(cmd.at(-1)).toBe('dist/server.js');
    expect(build).toContain("process.argv[2] ?? 'dist'");
    expect(build).toContain("{ server: 'src/server.ts' }");
    expect(existsSync('src/server.ts')).toBe(true);
  });

  it('carry the same healthcheck, node with no curl, in the compose file and the image', () => {
    // A shell string (CMD-SHELL): every compose implementation passes it on intact.
    const script = /^node -e "([^"$`\\]*)"$/.exec(sidefile.healthcheck.test)?.[1];
    expect(script, 'node -e "<script>", nothing the shell would expand').toBeDefined();
    const image = instructions('HEALTHCHECK')[0]!;
    expect(JSON.parse(image.slice(image.indexOf('CMD ') + 4))).toEqual(['node', '-e', script]);
    expect(script).not.toMatch(/\b(curl|wget)\b/); // node:*-slim has neither
  });

  it('mount secrets and volumes the file declares, each token file where its service mounts a secret', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const secret of service.secrets ?? []) expect(Object.keys(compose.secrets), name).toContain(secret);
      const tokenFiles = Object.entries(service.environment as Record<string, string>).filter(([key]) => key.endsWith('TOKEN_FILE'));
      expect(tokenFiles.length, name).toBeGreaterThan(0);
      for (const [key, file] of tokenFiles)
        expect(
          (service.secrets as string[]).map((s) => `/run/secrets/${s}`),
          `${name}: ${key}`,
        ).toContain(file);
      for (const volume of service.volumes ?? []) expect(Object.keys(compose.volumes), name).toContain(volume.split(':')[0]);
    }
    for (const service of [sidefile, agent]) expect(service.environment.SIDEFILE_TOKEN_FILE).toBe('/run/secrets/sidefile_token');
    // The comment at the top creates every secret file the compose file reads.
    for (const secret of Object.values(compose.secrets))
      expect(read('docker-compose.yml')).toContain(`> ${composeDefault(secret.file)!.replace(/^\.\//, '')}`);
  });
});

describe('the commands the deployment files carry', () => {
  let t: TestApp;
  let url: string;
  beforeEach(async () => {
    t = await makeTestApp({ config: { token: 'deploy-token' } });
    url = await listenOnLoopback(t);
  });
  afterEach(() => t.close());

  it('healthcheck: exits 0 while /healthz answers, 1 when nothing listens (run by /bin/sh, as compose does)', async () => {
    const env = { SIDEFILE_PORT: new URL(url).port, PATH: path.dirname(process.execPath) };
    const check = () => run('/bin/sh', ['-c', sidefile.healthcheck.test], { env });
    await expect(check()).resolves.toBeDefined();
    await t.app.close();
    expect(((await check().catch((e: unknown) => e)) as { code: number }).code).toBe(1);
  });

  const k8sAgent = () => {
    const docs = parseAllDocuments(read('deploy/kubernetes/deployment.yaml')).map((d) => d.toJS());
    const pod = docs.find((d) => d.kind === 'Deployment').spec.template.spec;
    return pod.containers.find((c: { name: string }) => c.name === 'agent').command as string[];
  };

  for (const [name, command] of [
    ['docker-compose.yml', () => agent.command as string[]],
    ['deploy/kubernetes', k8sAgent],
  ] as const) {
    it(`${name}'s stand-in agent reads the token file and writes hello.txt through sidefile`, async () => {
      const tokenFile = path.join(t.dataDir, '..', 'token');
      await writeFile(tokenFile, 'deploy-token\n');
      const [bin, ...args] = command();
      expect(bin).toBe('node');
      const child = spawn(process.execPath, args, { env: { SIDEFILE_URL: url, SIDEFILE_TOKEN_FILE: tokenFile }, stdio: 'ignore' });
      try {
        const hello = path.join(t.root, 'hello.txt');
        for (let i = 0; i < 200 && !existsSync(hello); i++) await new Promise((r) => setTimeout(r, 50));
        expect(await readFile(hello, 'utf8')).toBe('hello from the agent\n');
        expect(child.exitCode).toBeNull(); // it stays up, as an agent would
      } finally {
        child.kill();
      }
    });
  }
});
