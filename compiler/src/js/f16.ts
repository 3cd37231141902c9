/**
 * f16 arrays in the simulator's code are their raw 16-bit storage (a Uint16Array over the same bytes
 * as the host's Float16Array): on Node 20/22 the Float16Array is the polyfill's Proxy, and reading and
 * writing elements through its traps was ~200x slower than f32. A load decodes the bits with the
 * table `$h2f` (Float32Array of all 65,536 values); a store encodes with `$f2h`, which rounds to
 * nearest even as a Float16Array store does. Both come from rt (runtime/src/simulator/f16-table.ts).
 * f16 scalars stay plain numbers, already rounded by rt.f16round after every operation.
 */

/** The module-level line binding the tables (registered once per module that touches an f16 array). */
export const HALF_TABLES_NAME = "$h2f";
export const HALF_TABLES = "const { h2f: $h2f, f2h: $f2h } = rt.halfTables(); // f16 bits → value, value → f16 bits";

export function halfRead(data: string, flat: string): string {
  return `$h2f[${data}[${flat}]]`;
}

export function halfWrite(data: string, flat: string, value: string): string {
  return `${data}[${flat}] = $f2h(${value})`;
}

/** Whether storing `$sv` changes the element's value (so -0 over +0 does not, as with a Float16Array). */
export function halfChanged(data: string, flat: string): string {
  return `$h2f[${data}[${flat}]] !== $sv`;
}

/** A constant f16 array from its values' JavaScript text (`NaN`, `-0` and `Infinity` by name): rt.halfArray encodes them. */
export function halfConstArray(values: readonly string[]): string {
  return `rt.halfArray([${values.join(", ")}])`;
}

/**
 * An f16 atomic read-modify-write on the element's 16 bits: `next(o)` is the new value from the old
 * value `o` (and the helper's arguments), rounded to f16 once as the GPU's half atomics do. `plain` is
 * for memory no other worker touches; `concurrent` is a compare-and-swap loop on the bits.
 */
export function halfAtomic(args: string, next: (o: string) => string): { plain: string; concurrent: string } {
  const nb = (o: string) => `$f2h(rt.f16round(${next(o)}))`;
  return {
    plain: `function (${args}) { const o = $h2f[a[i]]; a[i] = ${nb("o")}; return o; }`,
    concurrent: `function (${args}) { for (;;) { const ob = Atomics.load(a, i), o = $h2f[ob]; if (Atomics.compareExchange(a, i, ob, ${nb("o")}) === ob) return o; } }`,
  };
}
