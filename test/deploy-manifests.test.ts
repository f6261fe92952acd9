import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SETTINGS } from '../src/config/settings.js';

/**
 * deploy/agent-sandbox/: each manifest of an agent-sandbox kind is valid against that CRD's
 * schema (vendored in test/fixtures/agent-sandbox-crds), and the names and paths the manifests
 * use agree: mounts ↔ volumes, flags ↔ mounts, references ↔ objects.
 */

const DIR = 'deploy/agent-sandbox';
const CRDS = 'test/fixtures/agent-sandbox-crds';

type Json = Record<string, any>;

interface Crd {
  group: string;
  kind: string;
  versions: Array<{ name: string; served: boolean; schema: Json }>;
}

/**
 * A CRD's structural schema as JSON Schema: unknown fields are errors (what `kubectl apply
 * --validate=strict` reports and the API server would otherwise drop silently) unless the
 * schema preserves them; Kubernetes' own keywords are dropped.
 */
function toJsonSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-')) continue;
    out[key] =
      key === 'properties' ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, toJsonSchema(v)])) : toJsonSchema(value);
  }
  if (schema.properties && schema.additionalProperties === undefined && !schema['x-kubernetes-preserve-unknown-fields']) {
    out.additionalProperties = false;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  delete out.nullable;
  return out;
}

const ajv = new Ajv({
  strict: false,
  allErrors: true,
  formats: { int32: true, int64: true, 'date-time': true, byte: true, double: true, float: true, quantity: true },
});
const compiled = new Map<Json, ReturnType<Ajv['compile']>>();
/** The validator of one CRD version's schema, compiled once (the pod schemas are large). */
function validatorOf(schema: Json): ReturnType<Ajv['compile']> {
  let validate = compiled.get(schema);
  if (validate === undefined) compiled.set(schema, (validate = ajv.compile(toJsonSchema(schema))));
  return validate;
}

const crds: Crd[] = readdirSync(CRDS)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(path.join(CRDS, f), 'utf8')) as Crd);

const manifests: Array<{ file: string; doc: Json }> = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8'))
      .map((d) => d.toJS() as Json)
      .filter(Boolean)
      .map((doc) => ({ file, doc })),
  );

const byKind = (kind: string): Json[] => manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc);

describe('deploy/agent-sandbox manifests', () => {
  it('has a SandboxTemplate, a SandboxWarmPool, a SandboxClaim, the Secrets and the router configuration', () => {
    expect(crds.map((c) => c.kind).sort()).toEqual(['Sandbox', 'SandboxClaim', 'SandboxTemplate', 'SandboxWarmPool']);
    for (const kind of ['SandboxTemplate', 'SandboxWarmPool', 'SandboxClaim', 'Secret', 'Deployment'])
      expect(byKind(kind).length).toBeGreaterThan(0);
  });

  for (const { file, doc } of manifests) {
    const [group, version] = String(doc.apiVersion).split('/');
    const crd = crds.find((c) => c.group === group && c.kind === doc.kind);
    if (crd === undefined) continue;
    it(`${file}: ${doc.kind} ${doc.metadata?.name} is valid against the ${crd.kind} CRD (${version})`, () => {
      const served = crd.versions.find((v) => v.name === version && v.served);
      expect(served, `${doc.apiVersion} is not a served version of ${crd.kind}`).toBeDefined();
      const validate = validatorOf(served!.schema);
      const ok = validate(doc);
      expect(ok ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)).toEqual([]);
    });
  }

  it('the schema check catches a misspelt field and a wrong type', () => {
    const crd = crds.find((c) => c.kind === 'SandboxTemplate')!;
    const validate = validatorOf(crd.versions.find((v) => v.name === 'v1beta1')!.schema);
    const template = structuredClone(byKind('SandboxTemplate')[0]!);
    template.spec.podTemplate.spec.containers[1].readinesProbe = {};
    expect(validate(template)).toBe(false);
    const wrongType = structuredClone(byKind('SandboxTemplate')[0]!);
    wrongType.spec.podTemplate.spec.containers[1].securityContext.readOnlyRootFilesystem = 'yes';
    expect(validate(wrongType)).toBe(false);
  });

  const template = byKind('SandboxTemplate')[0]!;
  const pod = template.spec.podTemplate.spec as Json;
  const sidefile = (pod.containers as Json[]).find((c) => c.name === 'sidefile')!;
  const workload = (pod.containers as Json[]).find((c) => c.name !== 'sidefile')!;

  it('runs sidefile non-root on a read-only root file system with /tmp and the data dir writable, all capabilities dropped', () => {
    expect(sidefile.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    const volume = (name: string): Json => (pod.volumes as Json[]).find((v) => v.name === name)!;
    const mountAt = (at: string): Json => (sidefile.volumeMounts as Json[]).find((m) => m.mountPath === at)!;
    expect(volume(mountAt('/tmp').name).emptyDir).toBeDefined();
    expect(flag('data-dir')).toBe('/var/lib/sidefile');
    expect(mountAt('/var/lib/sidefile').readOnly).not.toBe(true);
    expect(sidefile.readinessProbe.httpGet).toMatchObject({ path: '/v1/health' });
  });

  function flag(name: string): string | undefined {
    const arg = (sidefile.args as string[]).find((a) => a.startsWith(`--${name}=`));
    return arg?.slice(name.length + 3);
  }

  it('shares /workspace with the workload container, and names only volumes that exist', () => {
    const claimed = (template.spec.volumeClaimTemplates as Json[]).map((t) => t.metadata.name as string);
    const volumes = new Set([...(pod.volumes as Json[]).map((v) => v.name as string), ...claimed]);
    for (const container of pod.containers as Json[]) {
      for (const mount of container.volumeMounts as Json[]) expect(volumes.has(mount.name), `${container.name}: ${mount.name}`).toBe(true);
    }
    const workspaceOf = (c: Json): string => (c.volumeMounts as Json[]).find((m) => m.mountPath === '/workspace')!.name as string;
    expect(workspaceOf(sidefile)).toBe(workspaceOf(workload));
    expect(flag('root')).toBe('/workspace');
    expect(workload.securityContext?.privileged).not.toBe(true);
  });

  it('reads the token and the router secret from Secret volumes under the mounts the flags name, and name and namespace from the downward API', () => {
    const secrets = new Set(byKind('Secret').map((s) => s.metadata.name as string));
    for (const name of ['token-file', 'scoped-token-secret-file']) {
      const file = flag(name)!;
      expect(name in SETTINGS).toBe(true);
      const mount = (sidefile.volumeMounts as Json[]).find((m) => file.startsWith(`${m.mountPath}/`))!;
      expect(mount.readOnly).toBe(true);
      const volume = (pod.volumes as Json[]).find((v) => v.name === mount.name)!;
      expect(secrets.has(volume.secret.secretName)).toBe(true);
      const key = file.slice(mount.mountPath.length + 1);
      expect(Object.keys(byKind('Secret').find((s) => s.metadata.name === volume.secret.secretName)!.stringData)).toContain(key);
    }
    const env = Object.fromEntries((sidefile.env as Json[]).map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath]));
    expect(env).toMatchObject({ SIDEFILE_SANDBOX_NAME: 'metadata.name', SIDEFILE_SANDBOX_NAMESPACE: 'metadata.namespace' });
    expect(SETTINGS['sandbox-name'].env).toBe('SIDEFILE_SANDBOX_NAME');
    expect(SETTINGS['sandbox-namespace'].env).toBe('SIDEFILE_SANDBOX_NAMESPACE');
    // Every flag given is a setting sidefile knows.
    for (const arg of sidefile.args as string[]) expect(arg.slice(2).split('=')[0]! in SETTINGS, arg).toBe(true);
    // The workload sees the workspace and its Jupyter Server's token, none of sidefile's secrets.
    expect((workload.volumeMounts as Json[]).map((m) => m.mountPath)).toEqual(['/workspace', '/etc/jupyter-token']);
  });

  it('the pool names the template, the claim names the pool, and the router verifies with the same Secret', () => {
    expect(byKind('SandboxWarmPool')[0]!.spec.sandboxTemplateRef.name).toBe(template.metadata.name);
    expect(byKind('SandboxClaim')[0]!.spec.warmPoolRef.name).toBe(byKind('SandboxWarmPool')[0]!.metadata.name);
    const router = byKind('Deployment')[0]!.spec.template.spec;
    const args = router.containers[0].args as string[];
    expect(args).toContain('--authz-mode=scoped-token');
    const file = args.find((a) => a.startsWith('--authz-scoped-token-secret-file='))!.split('=')[1]!;
    const mount = (router.containers[0].volumeMounts as Json[]).find((m) => file.startsWith(`${m.mountPath}/`))!;
    const volume = (router.volumes as Json[]).find((v) => v.name === mount.name)!;
    const sidefileSecret = (pod.volumes as Json[]).find((v) => v.name === 'scoped-token-secret')!.secret.secretName;
    expect(volume.secret.secretName).toBe(sidefileSecret);
    expect(path.basename(file)).toBe(path.basename(flag('scoped-token-secret-file')!));
  });
});
