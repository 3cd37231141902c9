// The /dev/shm file mappings behind the simulator's IPC: two mappings of one file are the same
// memory; a missing or short file is an error, not a crash. (Two processes: test/simulator/ipc.test.ts.)
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { test } from "node:test";
import { createSharedFile, openSharedFile, sharedMemorySupport } from "./shared-memory";

test("two mappings of one shared file see each other's writes; the file holds them too", (t) => {
  const why = sharedMemorySupport();
  if (why) return t.skip(why);
  const name = `cs-shm-test-${process.pid}`;
  const a = createSharedFile(name, 4096);
  try {
    const b = openSharedFile(a.path, 4096);
    new Float64Array(a.memory)[3] = 2.5;
    assert.equal(new Float64Array(b.memory)[3], 2.5);
    new Uint8Array(b.memory)[4095] = 7;
    assert.equal(new Uint8Array(a.memory)[4095], 7);
    assert.equal(fs.readFileSync(a.path)[4095], 7);
    b.unmap();
    b.unmap(); // once
  } finally {
    fs.rmSync(a.path, { force: true });
  }
  // An unlinked file's mapping stays valid (POSIX): the exporter may remove it while others map it.
  new Uint8Array(a.memory)[0] = 1;
  assert.equal(new Uint8Array(a.memory)[0], 1);
  a.unmap();
});

test("a missing file, a file smaller than asked, and a name taken already are errors", (t) => {
  const why = sharedMemorySupport();
  if (why) return t.skip(why);
  assert.throws(() => openSharedFile(`/dev/shm/cs-shm-missing-${process.pid}`, 16), /ENOENT/);
  const name = `cs-shm-short-${process.pid}`;
  const a = createSharedFile(name, 16);
  try {
    assert.throws(() => openSharedFile(a.path, 64), /holds 16 bytes, fewer than the 64 asked for/);
    assert.throws(() => createSharedFile(name, 16), /EEXIST/);
  } finally {
    a.unmap();
    fs.rmSync(a.path, { force: true });
  }
});
