/** Reading the zip archives osls packages (stored or deflated entries, no zip64): tests only. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/** The files of a zip archive, by name, in the archive's order. */
export const unzip = (archive: Buffer): Map<string, Buffer> => {
  const end = archive.lastIndexOf(END_OF_CENTRAL_DIRECTORY);
  if (end < 0) throw new Error('not a zip archive');
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i += 1) {
    const method = archive.readUInt16LE(at + 10);
    const size = archive.readUInt32LE(at + 20);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const local = archive.readUInt32LE(at + 42);
    const name = archive.toString('utf8', at + 46, at + 46 + nameLength);
    const dataAt = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    const data = archive.subarray(dataAt, dataAt + size);
    if (method !== 0 && method !== 8) throw new Error(`${name}: compression method ${method}`);
    files.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
};

/** The names of a zip file's entries, sorted. */
export const zipEntries = (file: string): string[] => [...unzip(readFileSync(file)).keys()].sort();

/** Extracts a zip file into `dir` (as Lambda unpacks a package into /var/task). */
export const extractZip = (file: string, dir: string): void => {
  for (const [name, data] of unzip(readFileSync(file))) {
    if (name.endsWith('/')) continue;
    const target = join(dir, normalize(name));
    if (!target.startsWith(`${dir}/`)) throw new Error(`${name}: outside the archive's folder`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, data);
  }
};
