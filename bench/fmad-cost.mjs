#!/usr/bin/env node
// What CudaScript's default `--fmad=false` (no FMA contraction, so that every backend rounds `a * b + c`
// twice like TypeScript) costs against NVRTC's own default `--fmad=true`: registers (ptxas -v) and PTX
// instructions per kernel of the hand-written CUDA in bench/reference-cuda, same NVRTC, sm_80.
//
//   node bench/fmad-cost.mjs            (after `npx tsc -b`; needs NVRTC)
//
// Prints a table; asserts nothing. The figures are quoted in docs/gpu.md.
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const nb = require("../native-bindings/dist/index.js");
const load = nb.loadNvrtc();
if (!load.ok) {
  console.error(load.error.message);
  process.exit(2);
}
const nvrtc = load.nvrtc;

/** Per .entry: instructions (body lines ending in ';' that are not directives) and fma instructions. */
function ptxCounts(ptx) {
  const counts = {};
  let current;
  for (const raw of ptx.split("\n")) {
    const entry = /\.entry\s+(\w+)/.exec(raw);
    if (entry) counts[(current = entry[1])] = { inst: 0, fma: 0 };
    const t = raw.trim();
    if (!current || !t.endsWith(";") || t.startsWith(".") || t.startsWith("//") || t.startsWith("$")) continue;
    counts[current].inst++;
    if (/^fma\.rn\./.test(t)) counts[current].fma++;
  }
  return counts;
}

function compile(file, fmad) {
  const r = nvrtc.compile({ source: fs.readFileSync(file, "utf8"), name: path.basename(file), options: ["--gpu-architecture=sm_80", `--fmad=${fmad}`, "--ptxas-options=-v"] });
  if (!r.ok) throw new Error(`${file}: ${r.log}`);
  return { regs: new Map(nb.parseKernelResources(r.log).map((k) => [k.name, k.registers])), ptx: ptxCounts(r.ptx) };
}

const dir = path.join(here, "reference-cuda");
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
console.log(`FMA contraction cost, NVRTC ${nvrtc.info.version.major}.${nvrtc.info.version.minor}, sm_80, bench/reference-cuda`);
console.log(`${pad("kernel", 22)}${lpad("regs on", 8)}${lpad("off", 5)}${lpad("PTX on", 8)}${lpad("off", 6)}${lpad("Δ inst", 8)}${lpad("fma on", 8)}`);
let total = { on: 0, off: 0, kernels: 0, regsChanged: 0 };
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".cu")).sort()) {
  const on = compile(path.join(dir, f), true);
  const off = compile(path.join(dir, f), false);
  for (const [k, c] of Object.entries(on.ptx)) {
    const o = off.ptx[k];
    total.on += c.inst;
    total.off += o.inst;
    total.kernels++;
    if (on.regs.get(k) !== off.regs.get(k)) total.regsChanged++;
    console.log(`${pad(k, 22)}${lpad(on.regs.get(k), 8)}${lpad(off.regs.get(k), 5)}${lpad(c.inst, 8)}${lpad(o.inst, 6)}${lpad((o.inst - c.inst >= 0 ? "+" : "") + (o.inst - c.inst), 8)}${lpad(c.fma, 8)}`);
  }
}
console.log(`\n${total.kernels} kernels: PTX instructions ${total.on} with contraction, ${total.off} without (${(((total.off - total.on) / total.on) * 100).toFixed(1)} %); registers differ in ${total.regsChanged}.`);
