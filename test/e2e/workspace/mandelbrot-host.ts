import { report } from "cudascript";
// Host program: a 512×384 Mandelbrot image, reported as a 2-D array (the results panel draws it).
import { mandelbrot } from "./kernels";

const width = 512;
const height = 384;
const counts = new Int32Array(width * height);
const dx = 3.2 / width;
mandelbrot.launch(Math.ceil((width * height) / 128), 128)(-2.3, -1.2, dx, dx, width, counts);
report("counts", counts, { shape: [height, width] });

let inside = 0;
for (const c of counts) if (c >= 96) inside++;
console.log(`mandelbrot ${width}x${height}: ${inside} points inside the set`);
