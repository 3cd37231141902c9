// Memory shared between processes, for the CPU simulator's CUDA IPC ("@cudascript/native-bindings/shared-memory").
//
// Node cannot share a SharedArrayBuffer with another process, so an exported simulated allocation
// moves into a file under /dev/shm (tmpfs: RAM, no disk) mapped MAP_SHARED with libc's mmap through
// koffi; koffi.view makes an ArrayBuffer over the mapping without copying. Every process that maps
// the file reads and writes the same bytes, as two processes on one GPU do with cuIpcOpenMemHandle.
// Linux (and other POSIX systems with /dev/shm) only: elsewhere `sharedMemorySupport()` says why.
import * as fs from "node:fs";
import * as path from "node:path";
import { koffi } from "./koffi";

const PROT_READ = 1, PROT_WRITE = 2, MAP_SHARED = 1;
/** MAP_FAILED, (void *)-1, as koffi returns a pointer: a bigint address. */
const MAP_FAILED = 2n ** 64n - 1n;

/** Where shared files live: tmpfs, cleaned at reboot. */
export const SHARED_MEMORY_DIR = "/dev/shm";

interface Libc {
  mmap(addr: null, length: number, prot: number, flags: number, fd: number, offset: number): unknown;
  munmap(addr: unknown, length: number): number;
}
let libc: Libc | string | undefined;

function loadLibc(): Libc | string {
  if (libc !== undefined) return libc;
  if (process.platform !== "linux") return (libc = `shared memory between processes needs Linux (/dev/shm and libc's mmap); this is ${process.platform}`);
  if (!fs.existsSync(SHARED_MEMORY_DIR)) return (libc = `${SHARED_MEMORY_DIR} does not exist on this machine`);
  try {
    const lib = koffi.load("libc.so.6");
    libc = {
      mmap: lib.func("void *mmap(void *addr, size_t length, int prot, int flags, int fd, int64_t offset)") as Libc["mmap"],
      munmap: lib.func("int munmap(void *addr, size_t length)") as Libc["munmap"],
    };
  } catch (e) {
    libc = `libc.so.6 could not be loaded (${e instanceof Error ? e.message : String(e)})`;
  }
  return libc;
}

/** Undefined when shared memory works here, else why not. */
export function sharedMemorySupport(): string | undefined {
  const l = loadLibc();
  return typeof l === "string" ? l : undefined;
}

/** A file mapped into this process: `memory` views it (no copy) until `unmap()`. */
export interface SharedMapping {
  readonly path: string;
  readonly memory: ArrayBuffer;
  /** Unmaps (once). The ArrayBuffer must not be used afterwards: keep it unreachable first. */
  unmap(): void;
}

/** Creates `name` under /dev/shm with `bytes` bytes (zeroed; at least 1) and maps it. Throws on failure. */
export function createSharedFile(name: string, bytes: number): SharedMapping {
  const file = path.join(SHARED_MEMORY_DIR, name);
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.ftruncateSync(fd, Math.max(1, bytes));
    return map(file, fd, bytes);
  } catch (e) {
    fs.rmSync(file, { force: true });
    throw e;
  } finally {
    fs.closeSync(fd);
  }
}

/** Maps the first `bytes` bytes of an existing shared file (made by createSharedFile in any process). Throws when it is gone or smaller. */
export function openSharedFile(file: string, bytes: number): SharedMapping {
  const fd = fs.openSync(file, fs.constants.O_RDWR);
  try {
    const size = fs.fstatSync(fd).size;
    if (size < Math.max(1, bytes)) throw new Error(`${file} holds ${size} bytes, fewer than the ${bytes} asked for`);
    return map(file, fd, bytes);
  } finally {
    fs.closeSync(fd);
  }
}

function map(file: string, fd: number, bytes: number): SharedMapping {
  const l = loadLibc();
  if (typeof l === "string") throw new Error(l);
  const length = Math.max(1, bytes);
  const pointer = l.mmap(null, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (pointer === null || koffi.address(pointer) === MAP_FAILED) throw new Error(`mmap of ${file} (${length} bytes) failed (errno ${koffi.errno()})`);
  const memory = bytes === 0 ? new ArrayBuffer(0) : koffi.view(pointer, bytes);
  let mapped = true;
  return {
    path: file,
    memory,
    unmap() {
      if (!mapped) return;
      mapped = false;
      l.munmap(pointer, length);
    },
  };
}
