/**
 * The layout a `cuda.random` state array must have for a kernel to draw from it: rows of two u64 words,
 * the two words of a state adjacent (C order). The generated CUDA C++ reads them side by side from
 * `&states[i][0]`, so any other layout would update the neighbouring state. One check, two backends:
 * the simulator's draw (rt.xoroshiro128p.notStates, when its inline test fails) and the GPU's launch
 * (gpu/backend.ts, for each parameter the kernel draws from) give the same CSR033 message.
 */
import type { RandomStatesUse } from "@cudascript/compiler";
import type { KernelArg } from "../backend";
import { CudaScriptError } from "../errors";
import { placeFault } from "../fault-text";

/** Whether a kernel may draw from an array with rows of `cols` elements and these element strides (none: not a parameter). */
export function isStatesLayout(cols: number, elementStrides?: readonly number[]): boolean {
  return cols === 2 && (!elementStrides || (elementStrides[0] === 2 && elementStrides[1] === 1));
}

/** Why a kernel cannot draw from this array (the message of CSR033), or undefined when it can. */
export function statesLayoutProblem(draw: string | undefined, array: string, cols: number, elementStrides?: readonly number[]): string | undefined {
  if (isStatesLayout(cols, elementStrides)) return undefined;
  const what = `cuda.random.${draw ?? "xoroshiro128p draw"} from '${array}'`;
  if (cols !== 2) return `${what}, whose rows have ${cols} elements: a state array is [n, 2] u64 (one state of two words per row), as cuda.random.createXoroshiro128pStates(n, seed) makes it`;
  return `${what}, whose layout is not C order (element strides [${elementStrides!.join(", ")}]): a state array's two words of a state are adjacent; pass the array cuda.random.createXoroshiro128pStates(n, seed) made (or a C-order copy)`;
}

/** CSR033 at a GPU launch: an argument the kernel draws random numbers from (`uses`) that is not laid out as a state array. */
export function checkStatesArguments(kernel: string, uses: readonly RandomStatesUse[], args: readonly KernelArg[]): void {
  for (const use of uses) {
    const a = args[use.param];
    if (a?.kind !== "array") continue;
    const problem = statesLayoutProblem(use.draw, use.array, a.shape[1] ?? 0, a.strides);
    if (problem) throw new CudaScriptError("CSR033", placeFault(problem, use.span, kernel, use.fn !== kernel ? ` (device function '${use.fn}')` : ""));
  }
}

