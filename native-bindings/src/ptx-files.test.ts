import assert from "node:assert/strict";
import { test } from "node:test";
import { ptxFiles, ptxString, rewritePtxFiles } from "./ptx-files";

test("names are written with octal escapes ptxas accepts, and read back whatever escapes NVRTC used", () => {
  const name = '/tmp/we"ird \\ dir ü/k.ts';
  assert.equal(ptxString(name), '"/tmp/we\\042ird \\134 dir \\303\\274/k.ts"');
  // NVRTC's own spelling: \" for a quote, octal UTF-8 bytes.
  const nvrtc = '\t.file\t1 "/tmp/we\\"ird \\\\ dir \\303\\274/k.ts"\n\t.file\t2 "/usr/include/x.h", 1700000000, 42\n';
  assert.deepEqual([...ptxFiles(nvrtc)], [[1, name], [2, "/usr/include/x.h"]]);
  const rewritten = rewritePtxFiles(nvrtc, (n) => n);
  assert.equal(rewritten, '\t.file\t1 "/tmp/we\\042ird \\134 dir \\303\\274/k.ts"\n\t.file\t2 "/usr/include/x.h", 1700000000, 42\n');
  assert.deepEqual(ptxFiles(rewritten), ptxFiles(nvrtc));
});
