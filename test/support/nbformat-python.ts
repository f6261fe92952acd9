import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Jupyter's own nbformat, through the system Python (not a pyenv shim on PATH): it re-serialises
 * notebooks the way Python writers do and validates results as Jupyter would. Tests that need
 * it skip with a notice when it is not importable.
 */
export const SYSTEM_PYTHON = '/usr/bin/python3';

export const HAS_NBFORMAT =
  existsSync(SYSTEM_PYTHON) && spawnSync(SYSTEM_PYTHON, ['-c', 'import nbformat'], { stdio: 'ignore' }).status === 0;

function runPython(script: string, input: unknown): unknown {
  const out = spawnSync(SYSTEM_PYTHON, ['-c', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (out.status !== 0) throw new Error(`python failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as unknown;
}

const DUMP = `
import json, sys
out = {}
for name, text in json.load(sys.stdin).items():
    nb = json.loads(text)
    out[name + ' | json.dump'] = json.dumps(nb)
    out[name + ' | json.dump indent=2'] = json.dumps(nb, indent=2)
    out[name + ' | json.dump indent=4 ensure_ascii=False'] = json.dumps(nb, indent=4, ensure_ascii=False) + '\\n'
    out[name + ' | tabs, sorted keys'] = json.dumps(nb, indent='\\t', ensure_ascii=False, sort_keys=True) + '\\n'
    out[name + ' | minified'] = json.dumps(nb, separators=(',', ':'), ensure_ascii=False)
    out[name + ' | Jupyter with CRLF'] = (json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + '\\n').replace('\\n', '\\r\\n')
json.dump(out, sys.stdout)
`;

/** Each notebook re-serialised by Python's json in six layouts, named `<name> | <layout>`. */
export function pythonLayouts(notebooks: Record<string, string>): Record<string, string> {
  return runPython(DUMP, notebooks) as Record<string, string>;
}

const VALIDATE = `
import json, sys, warnings, logging
warnings.simplefilter('ignore')
logging.disable(logging.CRITICAL)
import nbformat
out = []
for text in json.load(sys.stdin):
    try:
        nbformat.validate(nbformat.reads(text, 4))
        out.append(None)
    except Exception as e:
        out.append(type(e).__name__ + ': ' + str(e).split('\\n')[0])
json.dump(out, sys.stdout)
`;

/** nbformat's verdict on each text, in one Python process: null when valid, else the error's first line. */
export function nbformatErrors(texts: string[]): Array<string | null> {
  return runPython(VALIDATE, texts) as Array<string | null>;
}
