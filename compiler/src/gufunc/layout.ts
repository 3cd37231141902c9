/**
 * The layout string of `cuda.guvectorize(fn, "(m,n),(n,p)->(m,p)")` (NumPy's generalized-ufunc signature,
 * Numba's `@guvectorize(..., "(n),(n)->()")`): the core dimensions of each input and output, named by
 * symbols; a symbol used twice binds the same size.
 *
 * Also the package's `@cudascript/compiler/gufunc-layout` entry point: the checker reads the layout at
 * build time (with the positions of its diagnostics) and the runtime's gufunc reads the same string with
 * the same parser when it binds sizes at a call. It imports nothing, so running a gufunc never loads the
 * compiler's front end (test/runtime/run-time-imports.test.ts).
 */

/** One argument's core dimensions, e.g. `["m", "n"]` for `(m,n)`, `[]` for `()`. */
export type CoreDims = readonly string[];

export interface GufuncLayout {
  readonly inputs: readonly CoreDims[];
  readonly outputs: readonly CoreDims[];
}

/** Where the layout string goes wrong: `offset` is the index in the string of the offending character. */
export interface LayoutError {
  readonly message: string;
  readonly offset: number;
}

/** Core ranks above 2 would make the kernel's arrays 4-D: CudaScript arrays have at most 3 dimensions. */
export const MAX_CORE_RANK = 2;

const EXAMPLE = `"(n),(n)->()"`;

/** Parses `"(m,n),(n,p)->(m,p)"`; spaces are allowed anywhere between the tokens, as NumPy allows. */
export function parseGufuncLayout(text: string): GufuncLayout | LayoutError {
  let at = 0;
  const skipSpaces = (): void => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const fail = (message: string, offset = at): LayoutError => ({ message, offset });
  const readList = (side: "input" | "output"): CoreDims[] | LayoutError => {
    const list: CoreDims[] = [];
    for (;;) {
      skipSpaces();
      if (text[at] !== "(") return fail(`expected '(' to open the core dimensions of ${side} ${list.length + 1}${at >= text.length ? " but the layout ends" : `, found '${text[at]}'`}: each argument is a parenthesised list of dimension names such as (n) or (m,n), or () for a scalar, e.g. ${EXAMPLE}`);
      const open = at++;
      const dims: string[] = [];
      skipSpaces();
      if (text[at] === ")") at++;
      else
        for (;;) {
          skipSpaces();
          const name = /^[A-Za-z_]\w*/.exec(text.slice(at))?.[0];
          if (!name) return fail(`expected a dimension name (a letter, then letters, digits or _) in the core dimensions of ${side} ${list.length + 1}${at >= text.length ? " but the layout ends" : `, found '${text[at]}'`}: write e.g. (m,n); a size is always a name, bound at each call`);
          dims.push(name);
          at += name.length;
          skipSpaces();
          if (text[at] === ",") {
            at++;
            continue;
          }
          if (text[at] === ")") {
            at++;
            break;
          }
          return fail(`expected ',' or ')' after '${name}' in the core dimensions of ${side} ${list.length + 1}${at >= text.length ? " but the layout ends" : `, found '${text[at]}'`}`);
        }
      if (dims.length > MAX_CORE_RANK)
        return fail(`${side} ${list.length + 1} has ${dims.length} core dimensions (${dims.join(",")}); CudaScript arrays have at most 3 dimensions and a gufunc keeps one for its loop, so core dimensions are () , (n) or (m,n): write a cuda.jit kernel for higher ranks`, open);
      list.push(dims);
      skipSpaces();
      if (text[at] !== ",") return list;
      at++;
    }
  };
  const inputs = readList("input");
  if ("message" in inputs) return inputs;
  skipSpaces();
  if (!text.startsWith("->", at)) return fail(`expected '->' between the inputs and the outputs${at >= text.length ? " but the layout ends" : `, found '${text[at]}'`}: a layout names the inputs' core dimensions, then '->', then the outputs', e.g. ${EXAMPLE}`);
  at += 2;
  const outputs = readList("output");
  if ("message" in outputs) return outputs;
  skipSpaces();
  if (at < text.length) return fail(`unexpected '${text[at]}' after the last output: the layout ends after the outputs' core dimensions, e.g. ${EXAMPLE}`);
  return { inputs, outputs };
}

export function isLayoutError(v: GufuncLayout | LayoutError): v is LayoutError {
  return "message" in v;
}

/** The layout written back in its canonical form, `(m,n),(n,p)->(m,p)`, for messages. */
export function formatGufuncLayout(layout: GufuncLayout): string {
  const list = (dims: readonly CoreDims[]): string => dims.map((d) => `(${d.join(",")})`).join(",");
  return `${list(layout.inputs)}->${list(layout.outputs)}`;
}
