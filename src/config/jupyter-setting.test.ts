import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.js';

const noFile = (): string => {
  throw Object.assign(new Error('nope'), { code: 'ENOENT' });
};
const parse = (argv: string[], readFile: (file: string) => string = noFile) => parseConfig(argv, {}, readFile, '/srv');

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('the Jupyter Server settings', () => {
  it('has none by default: NotebookRun then answers KERNEL_UNAVAILABLE', () => {
    expect(parse([]).jupyter).toBeNull();
    expect(parse(['--max-kernels', '8']).jupyter).toBeNull();
  });

  it('takes the URL, the token from a file (trailing whitespace stripped) and the kernel count', () => {
    const read = (file: string) => (file === path.resolve('/srv', 'secrets/jt') ? 'abc123 \n' : noFile());
    expect(
      parse(['--jupyter-url', 'https://lab.example.com/base/', '--jupyter-token-file', 'secrets/jt', '--max-kernels', '16'], read).jupyter,
    ).toEqual({
      url: 'https://lab.example.com/base',
      token: 'abc123',
      maxKernels: 16,
    });
    expect(parse(['--jupyter-url', 'http://127.0.0.1:8888']).jupyter).toEqual({ url: 'http://127.0.0.1:8888', token: null, maxKernels: 4 });
  });

  it.each([
    [['--jupyter-url', 'jupyter:8888'], /--jupyter-url \(SIDEFILE_JUPYTER_URL\)/],
    [['--jupyter-url', 'ftp://host'], /--jupyter-url/],
    [['--jupyter-url', 'http://host/?token=abc'], /--jupyter-url/],
    [['--jupyter-url', 'http://user:pw@host'], /--jupyter-url/],
    [
      ['--jupyter-url', 'http://host', '--jupyter-token-file', 'missing'],
      /--jupyter-token-file \(SIDEFILE_JUPYTER_TOKEN_FILE\): cannot read it \(ENOENT\)/,
    ],
    [['--max-kernels', '0'], /--max-kernels \(SIDEFILE_MAX_KERNELS\)/],
    [['--max-kernels', 'many'], /--max-kernels/],
  ])('refuses %j', (argv, pattern) => {
    expect(failure(() => parse(argv))).toMatch(pattern);
  });

  it('never puts the token or a password in a message', () => {
    const message = failure(() => parse(['--jupyter-url', 'http://user:hunter2@host']));
    expect(message).not.toContain('hunter2');
    expect(failure(() => parse(['--jupyter-url', 'http://host', '--jupyter-token-file', 'jt'], () => ' \n'))).toMatch(/the file is empty/);
  });
});
