// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: module loads
// (the PTX the driver receives, the JIT logs, the module cache), function lookup and attributes,
// kernel launches (every parameter's exact bytes), dynamic shared memory and occupancy.
import assert from "node:assert/strict";
import { test } from "node:test";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { CU_FUNC_ATTRIBUTE, CU_JIT, CudaDriverError, CudaUsageError, ParamScratch } from "@cudascript/native-bindings/cuda";
import { KINDS_PTX, KINDS_SOURCE } from "../native-bindings/ptx.fixtures";
import { driverDoubleOrSkip, hex, hexBytes, withContext } from "./test-double";

test("loadModule sends the PTX NUL-terminated with JIT log options, and returns the info log", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const module = ctx.loadModule(KINDS_PTX);
    const [load] = double.calls("cuModuleLoadDataEx");
    assert.ok(load);
    assert.equal(load.result, 0);
    assert.equal(load.ptx, KINDS_PTX, "the driver received exactly this text");
    assert.equal(load.ptxBytes, Buffer.byteLength(KINDS_PTX) + 1, "…followed by one NUL");
    assert.deepEqual(load.options, {
      [CU_JIT.INFO_LOG_BUFFER]: "buffer",
      [CU_JIT.INFO_LOG_BUFFER_SIZE_BYTES]: 65536,
      [CU_JIT.ERROR_LOG_BUFFER]: "buffer",
      [CU_JIT.ERROR_LOG_BUFFER_SIZE_BYTES]: 65536,
      [CU_JIT.LOG_VERBOSE]: 1,
      [CU_JIT.WALL_TIME]: 0,
    });
    assert.deepEqual(load.functions, ["kinds", "reduceSum"]);
    assert.equal(load.module, hex(module.handle));
    assert.match(module.infoLog, /Compiling entry function 'kinds' for 'sm_80'/);
    assert.match(module.infoLog, /Used 32 registers, 1024 bytes smem/);
    assert.equal(module.jitMillis, 0.25);
    assert.deepEqual(
      module.entries.map((e) => e.name),
      ["kinds", "reduceSum"],
    );
    // PTX that already ends in NUL is not given a second one.
    ctx.loadModule(`${KINDS_PTX}// another module\n\0`);
    assert.equal(double.calls("cuModuleLoadDataEx")[1]?.ptxBytes, Buffer.byteLength(KINDS_PTX) + "// another module\n".length + 1);
  });
});

test("modules are cached per context by PTX hash, and unloaded exactly once", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const a = ctx.loadModule(KINDS_PTX);
    const b = ctx.loadModule(KINDS_PTX);
    assert.equal(a, b);
    assert.equal(a.hash.length, 64);
    assert.equal(double.callCount("cuModuleLoadDataEx"), 1);
    assert.equal(double.live().modules, 1);
    assert.equal(ctx.loadedModules, 1);
    assert.equal(a.getFunction("kinds"), a.getFunction("kinds"), "functions are cached too");
    assert.equal(double.callCount("cuModuleGetFunction"), 1);
    a.unload();
    assert.throws(() => a.unload(), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD005");
    assert.throws(() => a.getFunction("kinds"), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD005");
    assert.equal(double.live().modules, 0);
    const c = ctx.loadModule(KINDS_PTX);
    assert.notEqual(c, a, "reloaded after unload");
    assert.equal(double.callCount("cuModuleLoadDataEx"), 2);
  });
});

test("a JIT failure surfaces the JIT's error log in the CudaDriverError", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const log = "ptxas application ptx input, line 42; error   : Unknown symbol 'missing'\nptxas fatal   : Ptx assembly aborted due to errors";
    double.failNextJit(218, log);
    let error: unknown;
    try {
      ctx.loadModule(KINDS_PTX);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof CudaDriverError);
    assert.equal(error.code, "CUDA_ERROR_INVALID_PTX");
    assert.equal(error.result, 218);
    assert.equal(error.call, "cuModuleLoadDataEx");
    assert.equal(error.description, "a PTX JIT compilation failed");
    assert.equal(error.jitLog, log);
    assert.ok(error.message.includes(log), error.message);
    assert.equal(error.contextUsable, true);
    assert.equal(ctx.usable, true);
    // Not cached: the next load succeeds.
    ctx.loadModule(KINDS_PTX);
    assert.equal(double.live().modules, 1);
  });
});

test("PTX the JIT rejects by itself: a target above the device, an unsupported ISA version, no .version", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const sm90 = KINDS_PTX.replace(".target sm_80", ".target sm_90");
    assert.throws(
      () => ctx.loadModule(sm90),
      (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_INVALID_PTX" && /sm_90.*sm_80/.test(e.jitLog ?? ""),
    );
    double.setMaxPtxVersion(77);
    assert.throws(
      () => ctx.loadModule(KINDS_PTX),
      (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" && /Unsupported \.version 7\.8; current version is '7\.7'/.test(e.jitLog ?? ""),
    );
    assert.throws(
      () => ctx.loadModule("this is not PTX"),
      (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_INVALID_PTX" && /Missing \.version/.test(e.message),
    );
    assert.equal(double.live().modules, 0);
  });
});

test("function lookup: a missing kernel names the ones the module has; attributes come from the driver", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const module = ctx.loadModule(KINDS_PTX);
    assert.throws(
      () => module.getFunction("saxpy"),
      (e: unknown) =>
        e instanceof CudaDriverError && e.code === "CUDA_ERROR_NOT_FOUND" && e.kernel === "saxpy" && /The module's kernels are: kinds, reduceSum\./.test(e.message),
    );
    const reduce = module.getFunction("reduceSum");
    assert.deepEqual(reduce.attributes(), {
      maxThreadsPerBlock: 1024,
      sharedSizeBytes: 1024,
      constSizeBytes: 0,
      localSizeBytes: 0,
      numRegs: 32,
      ptxVersion: 78,
      binaryVersion: 80,
      maxDynamicSharedSizeBytes: 48 * 1024 - 1024,
    });
    double.setFunctionAttribute("reduceSum", CU_FUNC_ATTRIBUTE.NUM_REGS, 40);
    assert.equal(ctx.functionAttribute(reduce, CU_FUNC_ATTRIBUTE.NUM_REGS), 40);
    assert.deepEqual(
      reduce.params?.map((p) => p.size),
      [8, 8, 4],
    );
  });
});

test("launch records grid, block, shared memory, stream and each parameter's exact bytes at its size", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const kinds = ctx.loadModule(KINDS_PTX).getFunction("kinds");
    const data = ctx.alloc(1024);
    const pair = new DataView(new ArrayBuffer(16));
    pair.setFloat32(0, 1.5, true);
    pair.setFloat64(8, -2.5, true);
    // Arguments as the compiler's ABI packs them: one little-endian buffer per parameter.
    const backing = new Float32Array([0, 0, 3.5, 0]); // a view with a non-zero byteOffset
    const args: ArrayBufferView[] = [
      new Int8Array([-5]),
      new Uint8Array([250]),
      new Int16Array([-1234]),
      new Uint16Array([60000]),
      new Int32Array([-123456789]),
      new Uint32Array([4000000000]),
      new BigInt64Array([-1234567890123n]),
      new BigUint64Array([0xfedcba9876543210n]),
      backing.subarray(2, 3),
      new Float64Array([-2.25]),
      new BigUint64Array([data.pointer + 64n]),
      pair,
      new Uint8Array([1]),
    ];
    const stream = ctx.createStream();
    ctx.launch(kinds, [3, 2], { x: 32, y: 4 }, 128, stream, args);
    const [launch] = double.calls("cuLaunchKernel");
    assert.ok(launch);
    assert.equal(launch.result, 0);
    assert.equal(launch.function, "kinds");
    assert.deepEqual(launch.grid, [3, 2, 1]);
    assert.deepEqual(launch.block, [32, 4, 1]);
    assert.equal(launch.sharedMem, 128);
    assert.equal(launch.stream, hex(stream.handle));
    assert.deepEqual(launch.params, args.map(hexBytes));
    const params = launch.params as string[];
    assert.deepEqual(
      params.map((p) => p.length / 2),
      [1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, 1],
    );
    // Spot checks of the little-endian encodings.
    assert.equal(params[0], "fb");
    assert.equal(params[2], "2efb");
    assert.equal(params[7], "1032547698badcfe");
    assert.equal(params[8], "00006040");
    assert.equal(params[10], Buffer.from(new BigUint64Array([data.pointer + 64n]).buffer).toString("hex"));
    assert.equal(params[11], "0000c03f0000000000000000000004c0");
    // The argument buffers can be reused at once: the next launch records the new values.
    (args[4] as Int32Array)[0] = 7;
    ctx.launch(kinds, 1, 1, 0, null, args);
    const second = double.calls("cuLaunchKernel")[1];
    assert.equal((second?.params as string[])[4], "07000000");
    assert.equal(second?.stream, "0x0");
    ctx.synchronize();
    stream.destroy();
    ctx.free(data);
  });
});

test("with its log off the double counts calls and still checks them, but keeps no entry; reset turns the log on", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const reduce = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
    const p = ctx.alloc(64);
    const args = [new BigUint64Array([p.pointer]), new BigUint64Array([p.pointer + 32n]), new Int32Array([8])];
    double.clearLog();
    double.setLogging(false);
    for (let i = 0; i < 3; i++) ctx.launch(reduce, 1, 32, 0, null, args);
    assert.equal(double.callCount("cuLaunchKernel"), 3);
    assert.deepEqual(double.log(), [], "no entry is kept while the log is off");
    // Still the driver's checks: a block over the device's limit is refused.
    assert.throws(() => ctx.launch(reduce, 1, 4096, 0, null, args), (e: unknown) => e instanceof CudaDriverError);
    double.setLogging(true);
    ctx.launch(reduce, 1, 32, 0, null, args);
    assert.equal(double.calls("cuLaunchKernel").length, 1);
    ctx.synchronize();
    ctx.free(p);
  });
  double.setLogging(false);
  double.reset();
  assert.equal(double.calls("cuInit").length, 0);
  withContext(double, () => {
    assert.ok(double.calls("cuInit").length + double.calls("cuDevicePrimaryCtxRetain").length > 0, "logging again after reset");
  });
});

test("argument buffers that do not match the kernel's PTX signature are refused before any driver call", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const reduce = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
    const p = new BigUint64Array([0n]);
    assert.throws(
      () => ctx.launch(reduce, 1, 256, 0, null, [p, p]),
      (e: unknown) => e instanceof CudaUsageError && e.code === "CSD006" && /kernel reduceSum takes 3 parameters \(8, 8, 4 bytes\), but 2 argument buffers were given/.test(e.message),
    );
    assert.throws(
      () => ctx.launch(reduce, 1, 256, 0, null, [p, p, new BigInt64Array([5n])]),
      (e: unknown) => e instanceof CudaUsageError && /argument 2 of kernel reduceSum is 8 bytes, but parameter reduceSum_param_2 \(\.u32\) is 4 bytes/.test(e.message),
    );
    assert.throws(() => ctx.launch(reduce, 0, 256, 0, null, [p, p, new Int32Array(1)]), (e: unknown) => e instanceof CudaUsageError && /grid dimensions/.test(e.message));
    assert.throws(() => ctx.launch(reduce, 1, [16, 1.5], 0, null, [p, p, new Int32Array(1)]), (e: unknown) => e instanceof CudaUsageError && /block dimensions/.test(e.message));
    assert.equal(double.callCount("cuLaunchKernel"), 0);
    // Limits the driver enforces come back as CudaDriverErrors naming the kernel.
    assert.throws(
      () => ctx.launch(reduce, 1, 2048, 0, null, [p, p, new Int32Array(1)]),
      (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_INVALID_VALUE" && e.kernel === "reduceSum" && /cuLaunchKernel \(kernel reduceSum\) failed/.test(e.message),
    );
    double.failNext("cuLaunchKernel", 701);
    assert.throws(
      () => ctx.launch(reduce, 1, 256, 0, null, [p, p, new Int32Array(1)]),
      (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" && e.contextUsable,
    );
  });
});

test("dynamic shared memory above 48 KiB opts the kernel in once, up to the device's limit", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const reduce = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
    const args = [new BigUint64Array(1), new BigUint64Array(1), new Int32Array(1)];
    ctx.launch(reduce, 1, 256, 16 * 1024, null, args);
    ctx.launch(reduce, 1, 256, 64 * 1024, null, args);
    ctx.launch(reduce, 1, 256, 60 * 1024, null, args);
    const calls = double.calls("cuFuncSetAttribute", "cuLaunchKernel").map((e) => [e.call, e.value ?? e.sharedMem]);
    assert.deepEqual(calls, [
      ["cuLaunchKernel", 16 * 1024],
      ["cuFuncSetAttribute", 64 * 1024],
      ["cuLaunchKernel", 64 * 1024],
      ["cuLaunchKernel", 60 * 1024],
    ]);
    assert.equal(reduce.attributes().maxDynamicSharedSizeBytes, 64 * 1024);
    const tooMuch = ctx.device.sharedMemoryPerBlockOptin - 1024 + 1; // the kernel has 1 KiB static
    assert.throws(
      () => ctx.launch(reduce, 1, 256, tooMuch, null, args),
      (e: unknown) => e instanceof CudaDriverError && e.call === "cuFuncSetAttribute" && e.code === "CUDA_ERROR_INVALID_VALUE" && /allows 166912 bytes per block/.test(e.message),
    );
    ctx.synchronize();
  });
});

test("the double, like the driver, refuses more than 48 KiB of dynamic shared memory unless the kernel opted in", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const reduce = ctx.loadModule(KINDS_PTX).getFunction("reduceSum"); // 1 KiB static
    const params = new ParamScratch().pack([new BigUint64Array(1), new BigUint64Array(1), new Int32Array(1)]);
    const raw = (bytes: number) => double.driver.api.cuLaunchKernel(reduce.handle, 1, 1, 1, 32, 1, 1, bytes, null, params, null);
    assert.equal(raw(47 * 1024), 0, "48 KiB minus the static 1 KiB needs no opt-in");
    assert.equal(raw(47 * 1024 + 1), 1, "CUDA_ERROR_INVALID_VALUE without the attribute");
    ctx.setMaxDynamicSharedMemory(reduce, 100 * 1024);
    assert.equal(raw(100 * 1024), 0);
    assert.equal(raw(100 * 1024 + 1), 1, "nor above the opted-in size");
    ctx.synchronize();
  });
});

test("occupancy: cuOccupancyMaxActiveBlocksPerMultiprocessor through the bindings", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const module = ctx.loadModule(KINDS_PTX);
    const kinds = module.getFunction("kinds");
    assert.equal(ctx.maxActiveBlocksPerMultiprocessor(kinds, 256), 8);
    double.setFunctionAttribute("kinds", CU_FUNC_ATTRIBUTE.NUM_REGS, 64);
    assert.equal(ctx.maxActiveBlocksPerMultiprocessor(kinds, 256), 4);
    const reduce = module.getFunction("reduceSum");
    assert.equal(ctx.maxActiveBlocksPerMultiprocessor(reduce, 128, 40 * 1024), 3);
    assert.deepEqual(
      double.calls("cuOccupancyMaxActiveBlocksPerMultiprocessor").map((e) => [e.function, e.blockSize, e.dynamicSharedMem, e.blocks]),
      [
        ["kinds", 256, 0, 8],
        ["kinds", 256, 0, 4],
        ["reduceSum", 128, 40960, 3],
      ],
    );
  });
});

test("NVRTC output loads and launches with the signatures the bindings read from it", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const compiled = nvrtc.compile({ source: KINDS_SOURCE, name: "kinds.cu", options: [`--gpu-architecture=compute_${ctx.device.computeCapability.major}${ctx.device.computeCapability.minor}`] });
    assert.equal(compiled.ok, true, compiled.log);
    const reduce = ctx.loadModule(compiled.ptx ?? "").getFunction("reduceSum");
    const input = ctx.alloc(1024);
    const output = ctx.alloc(4);
    const args = [new BigUint64Array([input.pointer]), new BigUint64Array([output.pointer]), new Int32Array([256])];
    ctx.launch(reduce, 1, 256, 1024, null, args);
    assert.deepEqual(double.calls("cuLaunchKernel")[0]?.params, args.map(hexBytes));
    ctx.synchronize();
    ctx.free(input);
    ctx.free(output);
  });
});
