import { test } from "node:test";
import * as assert from "node:assert/strict";
import { formatFocus, parseFocus, type FocusState } from "./focus-input";

const STATE: FocusState = { gridDim: [4, 2, 1], blockDim: [32, 2, 1], block: [1, 0, 0], thread: [3, 0, 0] };

test("the focus picker reads a block and thread, or a thread alone in the focus block, in the forms it shows", () => {
  assert.deepEqual(parseFocus("block (2, 1, 0) thread (5, 1, 0)", STATE), { block: [2, 1, 0], thread: [5, 1, 0] });
  assert.deepEqual(parseFocus(formatFocus({ block: [3, 1, 0], thread: [31, 1, 0] }), STATE), { block: [3, 1, 0], thread: [31, 1, 0] });
  assert.deepEqual(parseFocus("7", STATE), { block: [1, 0, 0], thread: [7, 0, 0] });
  assert.deepEqual(parseFocus(" thread 7, 1 ", STATE), { block: [1, 0, 0], thread: [7, 1, 0] });
  assert.deepEqual(parseFocus("Block [0] Thread [0,1]", STATE), { block: [0, 0, 0], thread: [0, 1, 0] });
});

test("the focus picker refuses indices outside the launch's blockDim and gridDim, and text that is no index, saying what to write", () => {
  assert.match((parseFocus("32", STATE) as { error: string }).error, /Thread \(32\) is outside the block: each index is below blockDim \(32, 2, 1\)/);
  assert.match((parseFocus("0, 0, 1", STATE) as { error: string }).error, /outside the block/);
  assert.match((parseFocus("block (4, 0, 0) thread (0, 0, 0)", STATE) as { error: string }).error, /Block \(4, 0, 0\) is outside the grid: each index is below gridDim \(4, 2, 1\)/);
  for (const bad of ["", "warp 3", "-1", "1.5", "1, 2, 3, 4", "block 2"]) {
    const r = parseFocus(bad, STATE);
    assert.ok("error" in r, `${JSON.stringify(bad)} is refused`);
    assert.match(r.error, /block \(1, 0, 0\) thread \(31, 1, 0\)/, `${JSON.stringify(bad)}: the message shows an example`);
  }
});
