/**
 * CUDA IPC on the simulator: an allocation shared with another Node process.
 *
 * A SharedArrayBuffer cannot cross processes, so `getIpcHandle()` moves the allocation's bytes into
 * a file under /dev/shm mapped MAP_SHARED (native-bindings/shared-memory: libc's mmap through koffi)
 * and the buffer keeps working on the mapping from then on; the other process maps the same file.
 * Both see each other's writes at once, as two processes on one GPU do. The mapping is not a
 * SharedArrayBuffer, so launches that use it run on the main thread (executor.ts workersCanShare).
 *
 * The handle is 64 bytes, the size of CUDA's CUipcMemHandle: "CSSIMIPC", the exporting process id
 * (u32 LE), 4 reserved bytes, the allocation's size (u64 LE) and the file's name (NUL-padded, 40
 * bytes). The exporter removes the file when it frees the array (or exits); an opened mapping stays
 * valid until it is released (POSIX keeps an unlinked file's mapped pages).
 */
import * as fs from "node:fs";
import type { SharedMapping } from "@cudascript/native-bindings/shared-memory";
import { CudaScriptError } from "../errors";
import type { Allocation } from "./address-space";
import type { SimBuffer, SimMemory } from "./backend";

const MAGIC = "CSSIMIPC";
const HANDLE_BYTES = 64;
const NAME_AT = 24;

type SharedMemoryModule = typeof import("@cudascript/native-bindings/shared-memory");
/** Loaded at the first IPC call: koffi is no cost to programs (or simulator workers) that never share memory. */
function sharedMemory(): SharedMemoryModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@cudascript/native-bindings/shared-memory") as SharedMemoryModule;
}

/** Files this process exported and has not removed yet: removed at free() or at exit. */
const exported = new Map<Allocation<SimMemory>, string>();
let exitHook = false;
let serial = 0;

/** Mappings are unmapped once their ArrayBuffer is unreachable: unmapping earlier could crash a stale view. */
const unmapWhenCollected = new FinalizationRegistry<SharedMapping>((m) => m.unmap());

function unsupported(what: string, why: string): CudaScriptError {
  return new CudaScriptError("CSR064", `${what}: the simulator shares memory between processes through ${"/dev/shm"} files, which is not possible here (${why}); run both processes on Linux, or on a GPU`);
}

/** The handle of `buffer` (moving its bytes into a shared file the first time). */
export function exportSimulatorIpc(buffer: SimBuffer): Uint8Array {
  if (buffer.imported)
    throw new CudaScriptError("CSR063", "getIpcHandle: this array was opened from another process's IPC handle; CUDA does not re-export IPC memory: send the original handle on instead");
  if (buffer.bytes === 0) throw new CudaScriptError("CSR063", "getIpcHandle: an empty array (no elements) has no device memory to share: send its shape instead");
  let name = exported.get(buffer.allocation);
  if (name === undefined) {
    const shm = sharedMemory();
    const why = shm.sharedMemorySupport();
    if (why) throw unsupported("getIpcHandle", why);
    name = `cssim-${process.pid}-${++serial}`;
    const mapping = shm.createSharedFile(name, buffer.bytes);
    new Uint8Array(mapping.memory).set(new Uint8Array(buffer.memory, 0, buffer.bytes));
    buffer.replaceMemory(mapping.memory);
    unmapWhenCollected.register(mapping.memory, mapping);
    exported.set(buffer.allocation, name);
    if (!exitHook) {
      exitHook = true;
      process.on("exit", () => {
        for (const a of [...exported.keys()]) forgetAllocation(a);
      });
    }
  }
  const handle = new Uint8Array(HANDLE_BYTES);
  const view = new DataView(handle.buffer);
  handle.set(Buffer.from(MAGIC, "latin1"), 0);
  view.setUint32(8, process.pid, true);
  view.setBigUint64(16, BigInt(buffer.bytes), true);
  handle.set(Buffer.from(name, "latin1"), NAME_AT);
  return handle;
}

/** Removes the shared file of an exported buffer being freed (other processes keep their mappings). */
export function forgetExport(buffer: SimBuffer): void {
  if (exported.size > 0) forgetAllocation(buffer.allocation);
}

function forgetAllocation(a: Allocation<SimMemory>): void {
  const name = exported.get(a);
  if (name === undefined) return;
  exported.delete(a);
  try {
    fs.rmSync(`/dev/shm/${name}`, { force: true });
  } catch {
    // best effort: /dev/shm is cleared at reboot
  }
}

/** Maps another process's allocation; `place` gives it an address in this process's address space. */
export function openSimulatorIpc(handle: Uint8Array, bytes: number, place: (bytes: number, memory: ArrayBufferLike) => SimBuffer): SimBuffer {
  const view = new DataView(handle.buffer, handle.byteOffset, handle.byteLength);
  if (handle.byteLength !== HANDLE_BYTES || Buffer.from(handle.subarray(0, 8)).toString("latin1") !== MAGIC)
    throw new CudaScriptError("CSR063", "cuda.openIpcArray: this is not an IPC handle of the CudaScript simulator (a GPU handle opens only on a GPU, with the GPU backend)");
  const pid = view.getUint32(8, true);
  const size = Number(view.getBigUint64(16, true));
  const name = Buffer.from(handle.subarray(NAME_AT)).toString("latin1").replace(/\0.*$/s, "");
  if (pid === process.pid)
    throw new CudaScriptError("CSR063", "cuda.openIpcArray: this handle was made by this process; as with CUDA, an IPC handle opens only in another process: here, use the array itself (or a view of it)");
  if (bytes > size) throw new CudaScriptError("CSR063", `cuda.openIpcArray: the shape, dtype, strides and offset reach ${bytes} bytes, but the shared allocation holds ${size}`);
  const shm = sharedMemory();
  const why = shm.sharedMemorySupport();
  if (why) throw unsupported("cuda.openIpcArray", why);
  let mapping: SharedMapping;
  try {
    mapping = shm.openSharedFile(`/dev/shm/${name}`, size);
  } catch (e) {
    throw new CudaScriptError(
      "CSR063",
      `cuda.openIpcArray: the shared memory of process ${pid} is gone (${e instanceof Error ? e.message : String(e)}): its exporter freed the array or exited; keep the exporting array alive until every other process has opened it`,
    );
  }
  unmapWhenCollected.register(mapping.memory, mapping);
  return place(size, mapping.memory);
}
