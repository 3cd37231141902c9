/**
 * Host memory kernels use in place (Numba's `mapped_array`, `managed_array`) and pinning of existing
 * host arrays (Numba's `pinned`), camelCased. A mapped or managed array is an ordinary typed array (or
 * NDArray) on the host; passed to a kernel it is neither copied in nor copied back: the kernel reads
 * and writes that memory itself (mapped: over the bus; managed: migrated by the driver).
 */
import type { DeviceBuffer } from "../backend";
import type { DType, DTypeName, TypedArray } from "../dtypes";
import { CudaScriptError } from "../errors";
import { describeValue, dtypeOfTypedArray, hostArrayLayout, isHostNDArray, NDArray, normalizeShape, toDType, type HostForShape, type Shape } from "./arrays";
import type { Order } from "./views";
import { currentBackend } from "./device";

/** The device buffer behind each mapped or managed array's memory (held while the memory is reachable). */
const hostVisible = new WeakMap<ArrayBufferLike, DeviceBuffer>();

/** The device buffer a kernel uses for `view` when it is mapped or managed memory, else undefined. */
export function hostVisibleBuffer(view: ArrayBufferView): DeviceBuffer | undefined {
  return hostVisible.get(view.buffer);
}

function hostVisibleArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>, kind: "mapped" | "managed", what: string, layout: { readonly order?: Order } | undefined): HostForShape<S, N> {
  const s = normalizeShape(shape, what);
  const t = toDType(dtype, what);
  const order = hostArrayLayout(s, t, layout, what);
  const n = s.reduce((a, b) => a * b, 1);
  const { host, device } = currentBackend().allocHostVisible(n * t.bytes, kind);
  hostVisible.set(host, device);
  const data = new t.arrayType(host, 0, n);
  return (s.length === 1 ? data : new NDArray(data, s, order)) as HostForShape<S, N>;
}

/**
 * Numba's `cuda.mapped_array`: page-locked host memory that kernels read and write directly, without
 * copies (each access crosses the bus: for data a kernel touches once). On the simulator it is the
 * simulated device's memory, shared the same way.
 */
export function mappedArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>, layout?: { readonly order?: Order }): HostForShape<S, N> {
  return hostVisibleArray(shape, dtype, "mapped", "cuda.mappedArray", layout);
}

/**
 * Numba's `cuda.managed_array`: unified memory, one array for the host and every GPU; the driver
 * moves pages where they are used. Synchronise (`cuda.synchronize()`) before the host reads what a
 * kernel wrote. On the simulator it is the simulated device's memory, shared the same way.
 */
export function managedArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>, layout?: { readonly order?: Order }): HostForShape<S, N> {
  return hostVisibleArray(shape, dtype, "managed", "cuda.managedArray", layout);
}

/** What `cuda.pinned(...arrays)` returns for `using`: unpins the arrays when disposed. */
export interface PinnedScope {
  [Symbol.dispose](): void;
}

/** `Symbol.dispose` (Node 20 has it from 20.4). */
const disposeSymbol: typeof Symbol.dispose = Symbol.dispose ?? Symbol.for("nodejs.dispose");

/**
 * Numba's `with cuda.pinned(*arrays):` — page-locks the memory of existing host arrays (typed arrays or
 * NDArrays) where they are, so copies from and to them are fast DMA, then unpins them:
 * `cuda.pinned(a, b, () => { … })` returns the function's result; `using _ = cuda.pinned(a, b)` unpins
 * at the end of the block. On the simulator, which has no bus, it only runs the work.
 */
export function pinned(...args: (TypedArray | NDArray)[]): PinnedScope;
export function pinned<R>(...args: [...(TypedArray | NDArray)[], () => R]): R;
export function pinned(...args: unknown[]): unknown {
  const work = typeof args[args.length - 1] === "function" ? (args.pop() as () => unknown) : undefined;
  const views = args.map((a, i) => {
    if (isHostNDArray(a)) return a.data;
    if (dtypeOfTypedArray(a)) return a as TypedArray;
    throw new CudaScriptError("CSR004", `cuda.pinned: argument ${i + 1} is ${describeValue(a)}; pass typed arrays or cuda.ndarray arrays, and the work as a last function argument`);
  });
  const unpins: (() => void)[] = [];
  const unpinAll = () => {
    for (const unpin of unpins.splice(0).reverse()) unpin();
  };
  const backend = currentBackend();
  try {
    for (const view of views) {
      const unpin = backend.registerHost?.(view);
      if (unpin) unpins.push(unpin);
    }
  } catch (e) {
    unpinAll();
    throw e;
  }
  if (!work) return { [disposeSymbol]: unpinAll } as PinnedScope;
  try {
    return work();
  } finally {
    unpinAll();
  }
}
