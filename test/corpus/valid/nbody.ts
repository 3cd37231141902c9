import { cuda, f32 } from "cudascript";

const TPB = 64;
const SOFTENING = 0.01;

/** m / (d^2 + eps)^(3/2): the scale of the acceleration that one body at distance d causes. */
const inverseCube = cuda.device((dx: f32, dy: f32, dz: f32, mass: f32): f32 => {
  const d2 = dx * dx + dy * dy + dz * dz + SOFTENING;
  const inv = 1 / Math.sqrt(d2);
  return mass * inv * inv * inv;
});

/**
 * One step of all-pairs gravitational accelerations (G = 1), the bodies staged through shared memory
 * TPB at a time. Launch with blockDim.x == TPB; any n (padding bodies have mass 0).
 */
export const nbodyAccel = cuda.jit(
  (
    px: Float32Array,
    py: Float32Array,
    pz: Float32Array,
    mass: Float32Array,
    ax: Float32Array,
    ay: Float32Array,
    az: Float32Array,
  ) => {
    const sx = cuda.shared.array(TPB, f32);
    const sy = cuda.shared.array(TPB, f32);
    const sz = cuda.shared.array(TPB, f32);
    const sm = cuda.shared.array(TPB, f32);
    const t = cuda.threadIdx.x;
    const i = cuda.grid(1);
    const n = px.length;
    const xi = i < n ? px[i] : 0;
    const yi = i < n ? py[i] : 0;
    const zi = i < n ? pz[i] : 0;
    let axi: f32 = 0;
    let ayi: f32 = 0;
    let azi: f32 = 0;
    for (let base = 0; base < n; base += TPB) {
      const j = base + t;
      sx[t] = j < n ? px[j] : 0;
      sy[t] = j < n ? py[j] : 0;
      sz[t] = j < n ? pz[j] : 0;
      sm[t] = j < n ? mass[j] : 0;
      cuda.syncthreads();
      for (let k = 0; k < TPB; k++) {
        const dx = sx[k] - xi;
        const dy = sy[k] - yi;
        const dz = sz[k] - zi;
        const s = inverseCube(dx, dy, dz, sm[k]);
        axi += dx * s;
        ayi += dy * s;
        azi += dz * s;
      }
      cuda.syncthreads();
    }
    if (i < n) {
      ax[i] = axi;
      ay[i] = ayi;
      az[i] = azi;
    }
  },
);
