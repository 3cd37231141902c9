import { strict as assert } from "node:assert";
import * as path from "node:path";
import { test } from "node:test";
import { CUDA_INTRINSIC_PATHS, INTRINSIC_PATHS, INTRINSIC_RECORDS, INTRINSICS, LANE_DEPENDENT_INTRINSICS, SYNC_INTRINSICS } from "./index";
import { LIBDEVICE_FUNCTIONS } from "./libdevice-table";
import { packageSources } from "../../../test/dist/support/source-files";

test("every record is complete: a unique name and paths, docs, a Numba name, lowerings by effect kind", () => {
  assert.equal(INTRINSICS.size, INTRINSIC_RECORDS.length);
  for (const r of INTRINSIC_RECORDS) {
    assert.ok(r.doc.signature && r.doc.text, `${r.name}: docs`);
    assert.ok(r.numba, `${r.name}: Numba's name`);
    for (const p of r.paths) assert.match(p, /^(cuda|Math)\./, `${r.name}: ${p}`);
    // The simulator computes pure functions and fences per thread; synchronising ones over the threads that reached them.
    if (r.effect === "pure" || r.effect === "fence") assert.ok(r.js, `${r.name}: a JavaScript lowering`);
    else assert.equal(r.js, undefined, `${r.name}: synchronisation is the simulator's sync code`);
    assert.ok(r.signatures || r.lowering, `${r.name}: a signature, or where the front end types it`);
    for (const s of r.signatures ?? []) {
      const firstDefault = s.params.findIndex((p) => p.default !== undefined);
      if (firstDefault >= 0) assert.ok(s.params.slice(firstDefault).every((p) => p.default !== undefined), `${r.name}: defaults only on trailing parameters`);
    }
  }
});

test("every libdevice function is a record with its path, and its tuple elements are records too", () => {
  for (const f of LIBDEVICE_FUNCTIONS) {
    const r = INTRINSIC_PATHS.get(`cuda.libdevice.${f.name}`);
    assert.ok(r, f.name);
    if (f.results.length > 1) for (let i = 0; i < f.results.length; i++) assert.ok(INTRINSICS.get(`libdevice.${f.name}[${i}]`)?.signatures, `${f.name}[${i}]`);
    else assert.equal(r.signatures?.[0]?.result, f.results[0]);
  }
  assert.equal(CUDA_INTRINSIC_PATHS.filter((p) => p.startsWith("libdevice.")).length, LIBDEVICE_FUNCTIONS.length);
});

test("the effect sets follow the records: every lane-dependent intrinsic but lanemaskLt synchronises", () => {
  for (const n of LANE_DEPENDENT_INTRINSICS) assert.ok(SYNC_INTRINSICS.has(n) || n === "lanemaskLt", n);
});

/**
 * One place per intrinsic: a source file outside intrinsics/ that names three or more synchronising
 * intrinsics as strings keeps a list of them — derive it from the records instead. The IR's name union
 * (a type) and the generated user declarations are the exceptions.
 */
test("no other source file keeps a list of intrinsics", () => {
  const repo = path.resolve(__dirname, "..", "..", "..");
  const ALLOWED = new Map([
    ["compiler/src/ir/nodes.ts", "the IR's IntrinsicName union (a type)"],
    ["runtime/src/kernel-intrinsics.ts", "generated from the records (scripts/gen-kernel-intrinsics.mjs)"],
  ]);
  const names = [...SYNC_INTRINSICS];
  const offenders: string[] = [];
  for (const { rel, text } of packageSources(repo)) {
    if (rel.startsWith("compiler/src/intrinsics/") || ALLOWED.has(rel)) continue;
    const found = names.filter((n) => text.includes(`"${n}"`));
    if (found.length >= 3) offenders.push(`${rel} (${found.join(", ")})`);
  }
  assert.deepEqual(offenders, [], "derive these from compiler/src/intrinsics/");
});
