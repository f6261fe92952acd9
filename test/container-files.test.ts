import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { SERVER_NODE_FLAGS } from '../bench/support/sidefile-server.js';

/**
 * Static checks of the deployment files (the image itself is built and run by
 * ../shared/tools/container-check, which needs podman and is not part of `npm test`).
 */
const read = (file: string) => readFileSync(path.resolve(process.cwd(), file), 'utf8');

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim());
  const final = lines.slice(lines.map((l) => l.startsWith('FROM ')).lastIndexOf(true));

  it('is multi-stage on a Node LTS slim image that a build arg can replace (a mirror, a local copy)', () => {
    const froms = lines.filter((l) => l.startsWith('FROM '));
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^FROM \$\{NODE_IMAGE\}( AS \w+)?$/);
    const arg = lines.slice(0, lines.indexOf(froms[0]!)).find((l) => l.startsWith('ARG NODE_IMAGE='));
    expect(arg).toMatch(/^ARG NODE_IMAGE=node:(22|24)-slim$/);
  });

  it('needs no git binary, runs as a non-root user and declares the workspace and data volumes', () => {
    // git_diff reads the HEAD blob in-process: no git in the image.
    expect(final.some((l) => /apt-get install .*\bgit\b/.test(l))).toBe(false);
    const user = final.filter((l) => l.startsWith('USER ')).pop();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)(:|$)/);
    expect(text).toMatch(/VOLUME \["\/workspace", "\/var\/lib\/sidefile"\]/);
    expect(text).toMatch(/SIDEFILE_DATA_DIR=\/var\/lib\/sidefile/);
    expect(text).toMatch(/SIDEFILE_HOST=0\.0\.0\.0/);
  });

  it('checks health without curl and starts node directly', () => {
    const health = final.find((l) => l.startsWith('HEALTHCHECK'));
    expect(health).toMatch(/CMD \["node", "-e", .*\/healthz/);
    expect(text).not.toMatch(/\bcurl\b(?! in the image)/);
    const cmd = final.filter((l) => l.startsWith('CMD ')).pop() ?? 'CMD []';
    expect(JSON.parse(cmd.slice('CMD '.length))).toEqual(['node', ...SERVER_NODE_FLAGS, 'dist/server.js']);
    expect(text).not.toMatch(/npm start/);
  });

  it('never bakes a token into the image', () => {
    expect(text).not.toMatch(/SIDEFILE_TOKEN=/);
  });
});

describe('node flags', () => {
  it('are the same for npm start, the image and the benches', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    expect(start).toBe(`node scripts/build-if-stale.mjs && node ${SERVER_NODE_FLAGS.join(' ')} dist/server.js`);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as {
    services: Record<
      string,
      { build?: unknown; environment?: Record<string, string>; volumes?: string[]; depends_on?: Record<string, unknown> }
    >;
    volumes: Record<string, unknown>;
  };

  it('runs sidefile as a sidecar beside an agent sharing a named workspace volume', () => {
    const { sidefile, agent } = compose.services;
    expect(sidefile?.build).toBeDefined();
    expect(sidefile?.volumes).toContain('workspace:/workspace');
    expect(agent?.volumes).toContain('workspace:/workspace');
    expect(Object.keys(compose.volumes)).toContain('workspace');
    expect(agent?.depends_on).toEqual({ sidefile: { condition: 'service_healthy' } });
  });

  it('passes the token as a compose secret file, never as an environment variable', () => {
    const raw = read('docker-compose.yml');
    const file = parse(raw) as {
      secrets?: Record<string, { file?: string }>;
      services: Record<string, { secrets?: string[]; environment?: Record<string, string> }>;
    };
    expect(file.secrets?.sidefile_token?.file).toMatch(/sidefile-token/);
    for (const name of ['sidefile', 'agent']) {
      const service = file.services[name]!;
      expect(service.secrets, name).toContain('sidefile_token');
      expect(service.environment?.SIDEFILE_TOKEN_FILE, name).toBe('/run/secrets/sidefile_token');
      expect(Object.keys(service.environment ?? {}), name).not.toContain('SIDEFILE_TOKEN');
    }
    expect(raw).not.toMatch(/SIDEFILE_TOKEN:/);
    expect(read('.gitignore')).toMatch(/^secrets\/$/m);
  });

  it('points to docs/operations.md', () => {
    expect(read('docker-compose.yml')).toContain('docs/operations.md');
  });
});

describe('deploy/kubernetes', () => {
  const docs = parseAllDocuments(read('deploy/kubernetes/deployment.yaml')).map((d) => d.toJS());
  const deployment = docs.find((d) => d.kind === 'Deployment');
  const pod = deployment.spec.template.spec;
  const sidefile = pod.containers.find((c: { name: string }) => c.name === 'sidefile');

  it('mounts the workspace at the same absolute path in the agent and sidefile containers', () => {
    const env = Object.fromEntries(sidefile.env.map((e: { name: string; value: string }) => [e.name, e.value]));
    const agent = pod.containers.find((c: { name: string }) => c.name === 'agent');
    const agentMount = agent.volumeMounts.find((m: { name: string }) => m.name === 'workspace');
    const sidefileMount = sidefile.volumeMounts.find((m: { name: string }) => m.name === 'workspace');
    expect(agentMount.mountPath).toBe(env.SIDEFILE_ROOT);
    // The agent's subPath is the same folder sidefile serves as its root.
    expect(path.join(sidefileMount.mountPath, agentMount.subPath ?? '')).toBe(env.SIDEFILE_ROOT);
  });

  it('points to docs/operations.md', () => {
    expect(read('deploy/kubernetes/deployment.yaml')).toContain('docs/operations.md');
    expect(read('deploy/kubernetes/kustomization.yaml')).toContain('docs/operations.md');
  });

  it('runs one sidefile per workspace, never two at once', () => {
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy.type).toBe('Recreate');
  });

  it('runs sidefile as a sidecar beside the agent on a shared workspace volume', () => {
    expect(pod.containers.map((c: { name: string }) => c.name).sort()).toEqual(['agent', 'sidefile']);
    const volume = pod.volumes.find((v: { name: string }) => v.name === 'workspace');
    expect(volume.persistentVolumeClaim ?? volume.emptyDir).toBeDefined();
  });

  it('probes liveness and readiness, takes the token from a Secret, limits resources', () => {
    expect(sidefile.livenessProbe.httpGet.path).toBe('/healthz');
    expect(sidefile.readinessProbe.httpGet.path).toBe('/readyz');
    const env = Object.fromEntries(sidefile.env.map((e: { name: string; value: string }) => [e.name, e.value]));
    expect(env.SIDEFILE_TOKEN_FILE).toBe('/var/run/secrets/sidefile/token');
    expect(pod.volumes.find((v: { name: string }) => v.name === 'token').secret.secretName).toBe('sidefile-token');
    expect(sidefile.resources.limits).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
  });

  it('runs as non-root with a read-only root file system and no privileges', () => {
    for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
      expect(c.securityContext, c.name).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
    }
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
  });

  it('keeps the data dir outside the root but on the same volume (hard-linked history)', () => {
    const env = Object.fromEntries(sidefile.env.map((e: { name: string; value: string }) => [e.name, e.value]));
    expect(path.relative(env.SIDEFILE_ROOT, env.SIDEFILE_DATA_DIR).startsWith('..')).toBe(true);
    const mount = sidefile.volumeMounts.find((m: { name: string }) => m.name === 'workspace').mountPath;
    expect(env.SIDEFILE_ROOT.startsWith(`${mount}/`) && env.SIDEFILE_DATA_DIR.startsWith(`${mount}/`)).toBe(true);
  });
});

describe('the first hour', () => {
  it('has docs/operations.md, and a README that stands on its own', () => {
    const ops = read('docs/operations.md');
    for (const topic of ['Docker Compose', 'Kubernetes', 'user:', 'chown', 'root not writable', 'One sidefile per workspace']) {
      expect(ops, topic).toContain(topic);
    }
    const readme = read('README.md');
    expect(readme).not.toMatch(/\]\(\.\.\/shared/);
    expect(readme).not.toContain('../shared');
    expect(readme).toContain('docs/operations.md');
  });

  it('has the MIT LICENSE package.json names, and a CHANGELOG with an Unreleased section', () => {
    expect((JSON.parse(read('package.json')) as { license: string }).license).toBe('MIT');
    const license = read('LICENSE');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} sidefile authors\n/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
    const changelog = read('CHANGELOG.md');
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    expect(changelog).toMatch(/^## \[0\.1\.0\]/m);
  });
});
