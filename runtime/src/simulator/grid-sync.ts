/**
 * Grid synchronisation on the simulator (docs/kernel-language.md#grid-synchronisation): the run loop
 * of a cooperative kernel's blocks and the co-residency limit its launches must respect.
 *
 * A cooperative kernel's emitted module gives a generator per block that yields at every `g.sync()`
 * (compiler/src/js/cooperative.ts). `runGrid` advances every block to its next grid barrier in turn, in
 * the calling thread, so no block passes a barrier before every block has reached it. A block that ends
 * while others wait at a barrier would hang a GPU: that is CSR035 here.
 */
import { KernelFault, type SimSite } from "./fault";

type BlockRun = (L: unknown, b: number) => Generator<number, void, void>;

export function runGrid(block: BlockRun, L: { grid: readonly number[] }, b0: number, b1: number, kernel: string, sites: readonly SimSite[]): void {
  const n = b1 - b0;
  const gens: Generator<number, void, void>[] = new Array(n);
  for (let i = 0; i < n; i++) gens[i] = block(L, b0 + i);
  for (;;) {
    let finished = -1, waiting = -1, waitSite = -1;
    for (let i = 0; i < n; i++) {
      const r = gens[i]!.next();
      if (r.done) {
        if (finished < 0) finished = i;
      } else if (waiting < 0) {
        waiting = i;
        waitSite = r.value;
      }
    }
    if (waiting < 0) return;
    if (finished >= 0) throw blockMissedBarrier(kernel, L.grid, b0 + finished, b0 + waiting, sites[waitSite]);
  }
}

function coords(b: number, grid: readonly number[]): [number, number, number] {
  const gx = grid[0]!, gy = grid[1]!;
  return [b % gx, Math.floor(b / gx) % gy, Math.floor(b / (gx * gy))];
}

function blockMissedBarrier(kernel: string, grid: readonly number[], finished: number, waiting: number, site: SimSite | undefined): KernelFault {
  const f = new KernelFault(
    "CSR035",
    "divergent-grid-barrier",
    `divergent grid barrier: block (${coords(waiting, grid).join(", ")}) waits at g.sync(), but block (${coords(finished, grid).join(", ")}) ended without reaching it (it returned early or skipped the barrier under a condition on blockIdx); on a GPU the grid would hang. Every thread of every block must reach the same g.sync() calls: put conditions around the work, not around g.sync()`,
    site,
  );
  f.kernel = kernel;
  f.block = coords(finished, grid);
  return f;
}

