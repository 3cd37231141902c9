/** The layout string of cuda.guvectorize, read by the checker at build time and by the runtime at a call. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatGufuncLayout, isLayoutError, parseGufuncLayout } from "./layout";

test("Numba's layouts parse into each argument's core dimensions; spaces are allowed between tokens", () => {
  assert.deepEqual(parseGufuncLayout("(m,n),(n,p)->(m,p)"), { inputs: [["m", "n"], ["n", "p"]], outputs: [["m", "p"]] });
  assert.deepEqual(parseGufuncLayout(" (n) , () -> (n) "), { inputs: [["n"], []], outputs: [["n"]] });
  assert.deepEqual(parseGufuncLayout("(n)->(),()"), { inputs: [["n"]], outputs: [[], []] });
  assert.equal(formatGufuncLayout(parseGufuncLayout(" ( rows , n_2 ),( n_2 )->( rows ) ") as never), "(rows,n_2),(n_2)->(rows)");
});

test("a malformed layout says what was expected and where (the offset of the offending character)", () => {
  const cases: [string, number, RegExp][] = [
    ["(n),(n)", 7, /expected '->' between the inputs and the outputs but the layout ends/],
    ["(n)->(n", 7, /expected ',' or '\)' after 'n'.*but the layout ends/],
    ["(n),(2)->()", 5, /expected a dimension name.*found '2'.*a size is always a name/],
    ["n->()", 0, /expected '\(' to open the core dimensions of input 1, found 'n'/],
    ["(n)->(n))", 8, /unexpected '\)' after the last output/],
    ["(a,b,c)->()", 0, /input 1 has 3 core dimensions \(a,b,c\).*at most 3 dimensions/],
    ["(n)->", 5, /expected '\(' to open the core dimensions of output 1 but the layout ends/],
  ];
  for (const [text, offset, message] of cases) {
    const r = parseGufuncLayout(text);
    assert.ok(isLayoutError(r), text);
    assert.equal(r.offset, offset, text);
    assert.match(r.message, message, text);
  }
});
