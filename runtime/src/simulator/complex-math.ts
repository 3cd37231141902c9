/**
 * Complex arithmetic of the simulator (`rt.c64`, `rt.c128`): the same formulas as the generated CUDA
 * C++ (compiler/src/cuda/complex.ts), step for step. For c64 every intermediate result is rounded to
 * f32 (`Math.fround`), as float arithmetic on the GPU rounds each operation; c128 computes in f64.
 */

export interface Complex {
  readonly re: number;
  readonly im: number;
}

export interface ComplexMath {
  make(re: number, im: number): Complex;
  /** c64 <-> c128 conversion of a value of the other type. */
  from(z: Complex): Complex;
  add(a: Complex, b: Complex): Complex;
  sub(a: Complex, b: Complex): Complex;
  mul(a: Complex, b: Complex): Complex;
  div(a: Complex, b: Complex): Complex;
  neg(a: Complex): Complex;
  conj(a: Complex): Complex;
  abs(a: Complex): number;
  arg(a: Complex): number;
  eq(a: Complex, b: Complex): boolean;
  exp(a: Complex): Complex;
  log(a: Complex): Complex;
  sqrt(a: Complex): Complex;
  sin(a: Complex): Complex;
  cos(a: Complex): Complex;
  rect(r: number, phi: number): Complex;
}

function complexMath(R: (x: number) => number): ComplexMath {
  const make = (re: number, im: number): Complex => ({ re: R(re), im: R(im) });
  const hypot = (x: number, y: number) => R(Math.hypot(x, y));
  return {
    make,
    from: (z) => make(z.re, z.im),
    add: (a, b) => make(a.re + b.re, a.im + b.im),
    sub: (a, b) => make(a.re - b.re, a.im - b.im),
    mul: (a, b) => make(R(a.re * b.re) - R(a.im * b.im), R(a.re * b.im) + R(a.im * b.re)),
    div: (a, b) => {
      // Smith's algorithm, as cs_cdiv.
      if (Math.abs(b.re) >= Math.abs(b.im)) {
        const r = R(b.im / b.re);
        const d = R(b.re + R(b.im * r));
        return make(R(a.re + R(a.im * r)) / d, R(a.im - R(a.re * r)) / d);
      }
      const r = R(b.re / b.im);
      const d = R(R(b.re * r) + b.im);
      return make(R(R(a.re * r) + a.im) / d, R(R(a.im * r) - a.re) / d);
    },
    neg: (a) => make(-a.re, -a.im),
    conj: (a) => make(a.re, -a.im),
    abs: (a) => hypot(a.re, a.im),
    arg: (a) => R(Math.atan2(a.im, a.re)),
    eq: (a, b) => a.re === b.re && a.im === b.im,
    exp: (a) => {
      const e = R(Math.exp(a.re));
      return make(e * R(Math.cos(a.im)), e * R(Math.sin(a.im)));
    },
    log: (a) => make(Math.log(hypot(a.re, a.im)), Math.atan2(a.im, a.re)),
    sqrt: (a) => {
      if (a.re === 0 && a.im === 0) return make(0, a.im);
      const t = R(Math.sqrt(R(R(Math.abs(a.re) + hypot(a.re, a.im)) * 0.5)));
      if (a.re >= 0) return make(t, a.im / R(t + t));
      // copysign(t, im): a negative zero im gives -t, as in C.
      return make(Math.abs(a.im) / R(t + t), a.im < 0 || Object.is(a.im, -0) ? -t : t);
    },
    sin: (a) => make(R(Math.sin(a.re)) * R(Math.cosh(a.im)), R(Math.cos(a.re)) * R(Math.sinh(a.im))),
    cos: (a) => make(R(Math.cos(a.re)) * R(Math.cosh(a.im)), -(R(Math.sin(a.re)) * R(Math.sinh(a.im)))),
    rect: (r, phi) => make(r * R(Math.cos(phi)), r * R(Math.sin(phi))),
  };
}

export const c64Math: ComplexMath = complexMath(Math.fround);
export const c128Math: ComplexMath = complexMath((x) => x);

/** Element `i` of an interleaved parts array (Float32Array for c64, Float64Array for c128). */
export function complexGet(parts: ArrayLike<number>, i: number): Complex {
  return { re: parts[2 * i]!, im: parts[2 * i + 1]! };
}

export function complexSet(parts: { [i: number]: number }, i: number, z: Complex): void {
  parts[2 * i] = z.re;
  parts[2 * i + 1] = z.im;
}
