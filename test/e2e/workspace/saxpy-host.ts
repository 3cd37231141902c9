import { report } from "cudascript";
// Host program: saxpy on 1M elements, checked against a CPU reference, reported to the results panel.
import { saxpy } from "./kernels";

const n = 1 << 20;
const a = 2.5;
const x = new Float32Array(n);
const y = new Float32Array(n);
for (let i = 0; i < n; i++) {
  x[i] = Math.sin(i / 4096);
  y[i] = (i % 1000) / 1000;
}
const out = new Float32Array(n);
saxpy.launch(Math.ceil(n / 256), 256)(a, x, y, out);

const expected = new Float32Array(n);
for (let i = 0; i < n; i++) expected[i] = Math.fround(Math.fround(a) * x[i]) + y[i];
report("out", out, { reference: expected, tolerance: 1e-5 });

let maxErr = 0;
for (let i = 0; i < n; i++) maxErr = Math.max(maxErr, Math.abs(out[i] - expected[i]));
console.log(`saxpy n=${n}: out[1] = ${out[1].toFixed(6)}, max error ${maxErr.toExponential(2)}`);
