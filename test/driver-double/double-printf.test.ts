// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: the printf
// FIFO limit (cuCtxSetLimit / cuCtxGetLimit with CU_LIMIT_PRINTF_FIFO_SIZE) and when the double
// accepts changing it — only before the first launch of a kernel that calls vprintf, as cuda.h says.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CU_LIMIT, CudaDriverError } from "@cudascript/native-bindings/cuda";
import { driverDoubleOrSkip, withContext } from "./test-double";

const entry = (name: string, body: string): string => `.visible .entry ${name}()\n{\n${body}\n ret;\n}\n`;
const PTX_HEADER = ".version 7.8\n.target sm_80\n.address_size 64\n";
// What NVRTC emits for a kernel that calls printf: a declaration of (and a call to) vprintf.
const PRINTING_PTX = `${PTX_HEADER}.extern .func (.param .b32 func_retval0) vprintf\n(\n .param .b64 vprintf_param_0,\n .param .b64 vprintf_param_1\n)\n;\n${entry("prints", "")}`;
const SILENT_PTX = `${PTX_HEADER}${entry("silent", "")}`;

test("the printf FIFO size is 1 MiB by default and can be set until a kernel that prints is launched", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    assert.equal(ctx.getLimit(CU_LIMIT.PRINTF_FIFO_SIZE), 1 << 20);
    ctx.setLimit(CU_LIMIT.PRINTF_FIFO_SIZE, 8 << 20);
    assert.equal(ctx.getLimit(CU_LIMIT.PRINTF_FIFO_SIZE), 8 << 20);
    const silent = ctx.loadModule(SILENT_PTX).getFunction("silent");
    ctx.launch(silent, 1, 1, 0, null, []);
    ctx.setLimit(CU_LIMIT.PRINTF_FIFO_SIZE, 4 << 20); // a kernel without printf fixes nothing
    const prints = ctx.loadModule(PRINTING_PTX).getFunction("prints");
    ctx.launch(prints, 1, 1, 0, null, []);
    ctx.synchronize();
    assert.throws(
      () => ctx.setLimit(CU_LIMIT.PRINTF_FIFO_SIZE, 16 << 20),
      (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_INVALID_VALUE" && e.call === "cuCtxSetLimit",
    );
    assert.equal(ctx.getLimit(CU_LIMIT.PRINTF_FIFO_SIZE), 4 << 20);
  });
});
