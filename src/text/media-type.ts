/**
 * The media type of a binary file from its first bytes (magic numbers), for Read's
 * BINARY_FILE answer: what the file is, so the agent knows what it holds and that
 * the Files API moves its bytes. Unknown: application/octet-stream.
 */
const MAGIC: Array<[type: string, at: number, bytes: readonly number[]]> = [
  ['application/pdf', 0, [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['application/x-sqlite3', 0, [...Buffer.from('SQLite format 3\0')]],
  ['application/vnd.apache.parquet', 0, [0x50, 0x41, 0x52, 0x31]],
  ['application/zip', 0, [0x50, 0x4b, 0x03, 0x04]],
  ['application/zip', 0, [0x50, 0x4b, 0x05, 0x06]],
  ['application/gzip', 0, [0x1f, 0x8b]],
  ['application/x-bzip2', 0, [0x42, 0x5a, 0x68]],
  ['application/x-xz', 0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['application/zstd', 0, [0x28, 0xb5, 0x2f, 0xfd]],
  ['application/x-7z-compressed', 0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['application/x-tar', 257, [...Buffer.from('ustar')]],
  ['application/x-elf', 0, [0x7f, 0x45, 0x4c, 0x46]],
  ['application/wasm', 0, [0x00, 0x61, 0x73, 0x6d]],
  ['application/java-vm', 0, [0xca, 0xfe, 0xba, 0xbe]],
  ['application/x-npy', 0, [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]],
  ['application/x-hdf5', 0, [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/png', 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', 0, [0xff, 0xd8, 0xff]],
  ['image/gif', 0, [0x47, 0x49, 0x46, 0x38]],
  ['image/bmp', 0, [0x42, 0x4d]],
  ['image/tiff', 0, [0x49, 0x49, 0x2a, 0x00]],
  ['image/tiff', 0, [0x4d, 0x4d, 0x00, 0x2a]],
  ['audio/mpeg', 0, [0x49, 0x44, 0x33]],
  ['audio/ogg', 0, [0x4f, 0x67, 0x67, 0x53]],
  ['audio/flac', 0, [0x66, 0x4c, 0x61, 0x43]],
  ['video/mp4', 4, [0x66, 0x74, 0x79, 0x70]],
  ['font/woff2', 0, [0x77, 0x4f, 0x46, 0x32]],
  ['font/woff', 0, [0x77, 0x4f, 0x46, 0x46]],
];

function at(head: Uint8Array, offset: number, bytes: readonly number[]): boolean {
  if (head.length < offset + bytes.length) return false;
  return bytes.every((b, i) => head[offset + i] === b);
}

export function sniffMediaType(head: Uint8Array): string {
  // RIFF containers name their kind at byte 8.
  if (at(head, 0, [0x52, 0x49, 0x46, 0x46])) {
    const kind = Buffer.from(head.subarray(8, 12)).toString('latin1');
    if (kind === 'WEBP') return 'image/webp';
    if (kind === 'WAVE') return 'audio/wav';
    if (kind === 'AVI ') return 'video/x-msvideo';
  }
  for (const [type, offset, bytes] of MAGIC) if (at(head, offset, bytes)) return type;
  return 'application/octet-stream';
}
