import { readFileSync } from 'node:fs';

/** A Dockerfile's instructions, one a line (continuations joined), for tests that check them. */
export interface Dockerfile {
  lines: string[];
  /** The arguments of every instruction of that name, in order (`COPY a b` → `a b`). */
  instructions(name: string): string[];
  /** The ARGs declared before the first FROM (those a FROM line can use), with their defaults. */
  globalArgs: Record<string, string | undefined>;
}

export function readDockerfile(file: string): Dockerfile {
  const lines = readFileSync(file, 'utf8')
    .replace(/\\\n\s*/g, '')
    .split('\n');
  const firstFrom = lines.findIndex((l) => l.startsWith('FROM '));
  const globalArgs = Object.fromEntries(
    lines.slice(0, firstFrom).flatMap((l) => {
      const m = /^ARG (\w+)(?:=(.*))?$/.exec(l);
      return m ? [[m[1]!, m[2]]] : [];
    }),
  );
  const instructions = (name: string) => lines.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim());
  return { lines, instructions, globalArgs };
}

/** The default of a compose `${NAME:-default}` value. */
export const composeDefault = (value: string): string | undefined => /^\$\{\w+:-(.*)\}$/.exec(value)?.[1];
