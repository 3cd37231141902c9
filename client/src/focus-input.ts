/**
 * The focus thread picker's input: "block (0, 0, 0) thread (5, 0, 0)", or the thread alone ("5",
 * "5, 1", "thread (5, 1, 0)"), validated against the launch's gridDim and blockDim before the request
 * goes to the adapter. No editor imports.
 */
export type Dim3 = readonly [number, number, number];

export interface FocusState {
  readonly gridDim: Dim3;
  readonly blockDim: Dim3;
  readonly block: Dim3;
  readonly thread: Dim3;
}

export function formatFocus(f: { block: Dim3; thread: Dim3 }): string {
  return `block (${f.block.join(", ")}) thread (${f.thread.join(", ")})`;
}

const show = (d: Dim3) => `(${d.join(", ")})`;

/** Up to three whole numbers from "(5, 1)", "5 1", "[5,1,0]". */
function numbers(text: string): number[] | undefined {
  const parts = text.replace(/[()[\]]/g, " ").split(/[\s,]+/).filter(Boolean);
  if (parts.length < 1 || parts.length > 3 || !parts.every((p) => /^\d+$/.test(p))) return undefined;
  return parts.map(Number);
}

function within(v: number[], dims: Dim3): Dim3 | undefined {
  const full: Dim3 = [v[0]!, v[1] ?? 0, v[2] ?? 0];
  return full.every((x, i) => x < dims[i]!) ? full : undefined;
}

/** The block and thread the input names (the block defaults to the focus's), or what is wrong with it. */
export function parseFocus(input: string, state: FocusState): { block: Dim3; thread: Dim3 } | { error: string } {
  const text = input.trim().toLowerCase();
  const m = /^(?:block\s*(.*?)\s*)?(?:thread\s*)?([^a-z]*)$/.exec(text);
  const example = `write e.g. "${formatFocus({ block: state.block, thread: state.blockDim.map((d) => d - 1) as unknown as Dim3 })}", or a thread alone: "${state.blockDim[0] - 1}"`;
  if (!m || !m[2] || (text.startsWith("block") && !m[1])) return { error: `Not a block and thread: ${example}.` };
  const t = numbers(m[2]);
  if (!t) return { error: `The thread is up to three whole numbers x, y, z: ${example}.` };
  const thread = within(t, state.blockDim);
  if (!thread) return { error: `Thread (${t.join(", ")}) is outside the block: each index is below blockDim ${show(state.blockDim)}.` };
  let block = state.block;
  if (m[1]) {
    const b = numbers(m[1]);
    const inGrid = b && within(b, state.gridDim);
    if (!b) return { error: `The block is up to three whole numbers x, y, z: ${example}.` };
    if (!inGrid) return { error: `Block (${b.join(", ")}) is outside the grid: each index is below gridDim ${show(state.gridDim)}.` };
    block = inGrid;
  }
  return { block, thread };
}
