import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

/**
 * deploy/kubernetes as shipped, without a cluster: every object validates against Kubernetes'
 * own JSON schema (test/fixtures/kubernetes, strict: unknown fields fail), and the names and
 * paths the objects use agree — volumes, the token file, the image the docs build and load.
 */
// ajv is CommonJS whose module.exports is the class; NodeNext types see a namespace.
const Ajv = createRequire(import.meta.url)('ajv') as typeof import('ajv').default;
const DIR = 'deploy/kubernetes';
const read = (file: string) => readFileSync(file, 'utf8');

type Obj = { apiVersion: string; kind: string; metadata: { name: string }; [k: string]: any };
const objects: Array<{ file: string; obj: Obj }> = (parse(read(`${DIR}/kustomization.yaml`)).resources as string[]).flatMap((file) =>
  parseAllDocuments(read(path.join(DIR, file))).map((d) => ({ file, obj: d.toJS() as Obj })),
);
const secretExample = parse(read(`${DIR}/secret.example.yaml`)) as Obj;

/** The vendored schema file of a kind: deployment-apps-v1.json, secret-v1.json, … */
function schemaFile(obj: Obj): string {
  const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
  return path.join('test/fixtures/kubernetes', `${[obj.kind.toLowerCase(), group, version].filter(Boolean).join('-')}.json`);
}

const ajv = new Ajv({ strict: false, allErrors: true, formats: { int32: true, int64: true, 'date-time': true, byte: true } });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
function validator(obj: Obj) {
  const file = schemaFile(obj);
  expect(existsSync(file), `${file}: vendor the schema of ${obj.kind}`).toBe(true);
  if (!compiled.has(file)) {
    const { $schema: _ignored, ...schema } = JSON.parse(read(file)) as Record<string, unknown>;
    compiled.set(file, ajv.compile(schema));
  }
  return compiled.get(file)!;
}

const deployment = objects.find((o) => o.obj.kind === 'Deployment')!.obj;
const pod = deployment.spec.template.spec;
const containers: any[] = [...(pod.initContainers ?? []), ...pod.containers];
const byName = (name: string) => containers.find((c) => c.name === name);
const envOf = (c: any): Record<string, string> => Object.fromEntries((c.env ?? []).map((e: any) => [e.name, e.value]));

describe('deploy/kubernetes objects', () => {
  it('are the kinds the schemas cover, and each validates against Kubernetes v1.32 (strict)', () => {
    expect(objects.map((o) => o.obj.kind).sort()).toEqual(['Deployment', 'PersistentVolumeClaim']);
    for (const { file, obj } of [...objects, { file: 'secret.example.yaml', obj: secretExample }]) {
      const validate = validator(obj);
      expect(validate(obj) ? [] : validate.errors, `${file} ${obj.kind}`).toEqual([]);
    }
  });

  it('fail the schema with a misspelt field (the check can fail)', () => {
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].volumeMount = broken.spec.template.spec.containers[0].volumeMounts;
    const validate = validator(broken);
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.map((e) => e.params)).toContainEqual({ additionalProperty: 'volumeMount' });
  });
});

describe('deploy/kubernetes pod', () => {
  it('mounts only volumes the pod declares, and claims the PVC the kustomization ships', () => {
    const volumes = new Set(pod.volumes.map((v: any) => v.name));
    for (const c of containers) for (const m of c.volumeMounts ?? []) expect(volumes.has(m.name), `${c.name} mounts ${m.name}`).toBe(true);
    const claim = pod.volumes.find((v: any) => v.persistentVolumeClaim)?.persistentVolumeClaim.claimName;
    expect(objects.find((o) => o.obj.kind === 'PersistentVolumeClaim')?.obj.metadata.name).toBe(claim);
  });

  it('gives every container with a read-only root file system an emptyDir at /tmp', () => {
    for (const c of containers.filter((c) => c.securityContext?.readOnlyRootFilesystem)) {
      const mount = (c.volumeMounts ?? []).find((m: any) => m.mountPath === '/tmp');
      expect(mount, `${c.name} has no /tmp`).toBeDefined();
      expect(pod.volumes.find((v: any) => v.name === mount.name).emptyDir, `${c.name}: /tmp is an emptyDir`).toBeDefined();
    }
  });

  it('hands both containers the token as a file from the Secret, never as an environment variable', () => {
    const volume = pod.volumes.find((v: any) => v.secret);
    expect(volume.secret.secretName).toBe(secretExample.metadata.name);
    const [item] = volume.secret.items;
    expect(Object.keys(secretExample.stringData)).toEqual([item.key]);
    for (const name of ['sidefile', 'agent']) {
      const c = byName(name);
      const mount = c.volumeMounts.find((m: any) => m.name === volume.name);
      expect(mount.readOnly, name).toBe(true);
      expect(envOf(c).SIDEFILE_TOKEN_FILE, name).toBe(path.posix.join(mount.mountPath, item.path));
    }
    expect(byName('agent').command.join('\n')).toContain('readFileSync(process.env.SIDEFILE_TOKEN_FILE');
    for (const c of containers) {
      expect(
        (c.env ?? []).filter((e: any) => e.valueFrom),
        c.name,
      ).toEqual([]);
      expect(Object.keys(envOf(c)), c.name).not.toContain('SIDEFILE_TOKEN');
    }
  });

  it('probes ports the sidefile container names', () => {
    const sidefile = byName('sidefile');
    const ports = sidefile.ports.map((p: any) => p.name);
    for (const probe of [sidefile.livenessProbe, sidefile.readinessProbe]) expect(ports).toContain(probe.httpGet.port);
    expect(sidefile.ports[0].containerPort).toBe(Number(envOf(sidefile).SIDEFILE_PORT));
  });
});

describe('deploy/kubernetes image', () => {
  const kustomization = parse(read(`${DIR}/kustomization.yaml`)) as { images: Array<{ name: string; newName: string; newTag: string }> };
  const [entry] = kustomization.images;
  const local = `${entry!.newName}:${entry!.newTag}`;

  it('is the locally built sidefile:local, never pulled when loaded, and renamed in one place', () => {
    expect(local).toBe('sidefile:local');
    for (const c of containers.filter((c) => c.name !== 'agent')) {
      expect(c.image, c.name).toBe(local);
      expect(c.image.split(':')[0], c.name).toBe(entry!.name);
      expect(c.imagePullPolicy, c.name).toBe('IfNotPresent');
    }
  });

  it('is the image docs/deploy.md builds and loads into kind and minikube', () => {
    const doc = read('docs/deploy.md');
    expect(doc).toContain(`docker build -t ${local} .`);
    expect(doc).toContain(`kind load docker-image ${local}`);
    expect(doc).toContain(`minikube image load ${local}`);
    expect(doc).toContain(`kubectl apply -k ${DIR}`);
    expect(doc).toContain(`--from-file=${secretExample.stringData && Object.keys(secretExample.stringData)[0]}=secrets/sidefile-token`);
  });
});
