/**
 * IR → JavaScript for the CPU simulator. One emitted module per source file (its kernels and the
 * device functions they reach); the simulator instantiates it with `new Function("rt", source)`.
 *
 * Execution strategy per kernel:
 * - No synchronisation (no barrier, no warp operation, directly or through device functions): the
 *   kernel becomes a plain loop nest over the block's threads (`for tz, ty, tx { body }`).
 * - Otherwise loop fission: the kernel is normalised (device functions that synchronise are inlined,
 *   synchronisations lifted into statements), then split into per-thread *pieces* between
 *   synchronisation points; each piece is a loop over the block's threads, and block-level control flow
 *   (uniform loops/ifs as plain JS, divergent ones masked by a per-thread state code) connects them.
 *   Locals that live across pieces are kept in per-thread typed arrays. Warp operations are pieces of
 *   their own that work warp by warp (32 consecutive linear thread ids) on the values every lane
 *   supplied: lockstep semantics.
 *
 * Every array access is bounds-checked. The sanitize variant adds shared-memory race, uninitialised
 * shared read and divergent-barrier detection, plus a watchdog on every loop.
 *
 * The runtime object `rt` the module receives provides (see runtime/src/simulator/rt.ts):
 *   rt.oob(site, index, length, dim)      throws the out-of-bounds error
 *   rt.threadError(err, kernel, bx, by, bz, tx, ty, tz)  adds the block/thread to an error
 *   rt.print(site, args)                  device printf
 *   rt.concurrent                         true when other workers share device memory
 *   rt.intView(array)                     Int32Array (f32) / BigInt64Array (f64) view for CAS loops
 *   rt.f16round(x)                        rounds to f16 (after every f16 operation)
 *   rt.halfTables()                       { h2f, f2h }: f16 bits → value table, value → f16 bits
 *                                         (f16 arrays are Uint16Arrays of their bits: see f16.ts)
 *   rt.halfArray(values)                  a constant f16 array's bits
 *   rt.i64                                i64/u64 helpers that need a branch (see int64.ts)
 *   rt.fma64, rt.popc, rt.brev, rt.ffs    math helpers
 *   rt.sameBits(a, b)                     warp match's comparison of bit patterns
 *   rt.perThread(Ctor, size, n)           n typed arrays of `size` elements
 *   rt.sanitizer(kernelInfo)              the sanitizer state (sanitize variant only)
 *   rt.watchdog(site)                     checks the deadline; returns the next loop budget
 * and the module returns { abi, sites, kernels: { [name]: { run(L, firstBlock, endBlock), info } } }
 * where L = { args, grid: [x, y, z], block: [x, y, z], dynShared: bytes }.
 *
 * The emitter lives in js/emit/, one file per concern around an explicit emit context (context.ts):
 *   module.ts      the module: sites, helpers, shared storage, the prelude; emitSimulatorModule
 *   function.ts    FnEmitter: one function's entry points (the stepping backend's hooks)
 *   values.ts      expressions, literals, conversions (i64 via int64.ts, f16, complex)
 *   intrinsic.ts   pure intrinsics
 *   memory.ts      element accesses, atomics, random draws, views, the sanitizer's shadow checks
 *   atomics.ts     the module's atomic read-modify-write helpers
 *   arrays.ts      array storage and declarations
 *   statements.ts  per-thread statements and plain loops
 *   frame.ts       a kernel's setup and declarations
 *   plain-kernel.ts  kernels without synchronisation (loop nest, proven and flat-grid copies)
 *   fission.ts     kernels that synchronise: pieces, masking, block-level control flow
 *   pieces.ts      runs of pieces as thread loops
 *   sync.ts        barriers, warp operations, grid sync (`syncCode`)
 * and the analyses they run first: normalize.ts, uniform.ts, remat.ts, privatize.ts, in-range.ts,
 * flat-grid.ts, cooperative.ts.
 */
export { emitSimulatorModule, ModuleEmitter, SIM_ABI, constArrayJs, type SimEmitOptions, type SimKernelInfo, type SimModule, type SimSite } from "./emit/module";
export { FnEmitter } from "./emit/function";
export { safeName } from "./emit/context";
export { slotsPerElement, storageArrayName, stridesOf, zeroOf, type ArrayInfo } from "./emit/arrays";
export { convertJs, literal } from "./emit/values";
export { withoutOuterFround } from "./emit/memory";
export { smallCountedLoop } from "./emit/statements";
