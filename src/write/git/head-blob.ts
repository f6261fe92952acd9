import path from 'node:path';
import { isInside } from '../../paths/lexical.js';
import { CheckedGitFs } from './checked-fs.js';
import { ObjectStore } from './objects.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from './pack.js';
import { gitDirsOf, resolveHead } from './refs.js';

/**
 * HEAD's blob of one file, read in-process (`git_diff`): no git binary and nothing of
 * the repository's config runs, and every file read goes through CheckedGitFs.
 */

const MAX_TAG_PEELS = 5;
/** Git's tree entry modes for a file: regular, executable, symbolic link. */
const FILE_MODES = new Set(['100644', '100755', '120000', '100664']);

/**
 * The bytes HEAD holds at `rel` (`/`-separated, relative to the work tree `top`); null when
 * HEAD does not have it as a file (untracked, a folder or a submodule there, or no commit
 * yet). Throws when the repository cannot be read, or OutsideRead when a read leads outside.
 */
export async function headBlob(top: string, root: string, rel: string, maxSize: number): Promise<Buffer | null> {
  // Security: a work tree in the workspace is the agent's to shape; one above it is the operator's.
  const fsx = new CheckedGitFs(isInside(root, top) ? root : null);
  const dirs = await gitDirsOf(fsx, top);
  const store = await ObjectStore.openAt(fsx, path.join(dirs.commonDir, 'objects'), maxSize);
  try {
    const head = await resolveHead(fsx, dirs);
    if (head === null) return null;
    let tree = await treeOfCommit(store, head);
    const parts = rel.split('/');
    for (const [i, name] of parts.entries()) {
      const entry = findEntry(tree, name);
      if (entry === null) return null;
      const last = i === parts.length - 1;
      if (last) {
        if (!FILE_MODES.has(entry.mode)) return null;
        return expectType(await store.read(entry.oid), OBJ_BLOB);
      }
      if (entry.mode !== '40000') return null;
      tree = expectType(await store.read(entry.oid), OBJ_TREE);
    }
    return null;
  } finally {
    await store.close();
  }
}

function expectType(object: { type: number; data: Buffer }, type: number): Buffer {
  if (object.type !== type) throw new Error('unexpected object type');
  return object.data;
}

/** The root tree of the commit `oid` names (an annotated tag is peeled first). */
async function treeOfCommit(store: ObjectStore, oid: string): Promise<Buffer> {
  let id = oid;
  for (let peel = 0; peel <= MAX_TAG_PEELS; peel += 1) {
    const object = await store.read(id);
    const first = /^(tree|object) ([0-9a-f]{40})\n/.exec(object.data.subarray(0, 100).toString('latin1'));
    if (first === null) throw new Error('bad commit or tag');
    if (object.type === OBJ_COMMIT && first[1] === 'tree') return expectType(await store.read(first[2] as string), OBJ_TREE);
    if (object.type !== OBJ_TAG || first[1] !== 'object') throw new Error('HEAD is not a commit');
    id = first[2] as string;
  }
  throw new Error('tag chain too long');
}

/** `<mode> <name>\0<20-byte id>` entries: the one named `name`, or null. */
function findEntry(tree: Buffer, name: string): { mode: string; oid: string } | null {
  const want = Buffer.from(name, 'utf8');
  let i = 0;
  while (i < tree.length) {
    const space = tree.indexOf(0x20, i);
    const nul = space < 0 ? -1 : tree.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > tree.length) throw new Error('bad tree');
    if (nul - space - 1 === want.length && tree.compare(want, 0, want.length, space + 1, nul) === 0) {
      return { mode: tree.toString('latin1', i, space), oid: tree.toString('hex', nul + 1, nul + 21) };
    }
    i = nul + 21;
  }
  return null;
}
