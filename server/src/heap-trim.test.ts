/**
 * HeapTrim (heap-trim.ts): the language server's full collection after a burst of edits — once the
 * checks pause, and every `burstChecks` checks during a long burst; never for a handful of checks.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_HEAP_TRIM, HeapTrim } from "./heap-trim";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a long burst of checks is collected every burstChecks checks, without waiting for a pause", () => {
  let runs = 0;
  const trim = new HeapTrim(() => runs++, { idleMs: 60_000, minChecks: 20, burstChecks: 200 });
  for (let i = 0; i < 1000; i++) trim.checked();
  trim.dispose();
  assert.equal(runs, 5);
});

test("a pause after at least minChecks checks collects once; fewer checks never do", async () => {
  let runs = 0;
  const trim = new HeapTrim(() => runs++, { idleMs: 20, minChecks: 20, burstChecks: 200 });
  for (let i = 0; i < 19; i++) trim.checked();
  await sleep(80);
  assert.equal(runs, 0, "19 checks are not worth a collection");
  trim.checked();
  assert.equal(runs, 0, "not while checks keep coming");
  await sleep(80);
  assert.equal(runs, 1);
  await sleep(80);
  assert.equal(runs, 1, "one collection per pause");
  trim.dispose();
});

test("in a plain node process (no --expose-gc) the default collector is V8's full collection: unreachable objects go", async () => {
  let garbage: object | undefined = { big: new Array(1000).fill(0) };
  const ref = new WeakRef(garbage);
  garbage = undefined;
  await sleep(0); // a WeakRef's target lives at least until the end of the job that made it
  const trim = new HeapTrim();
  for (let i = 0; i < DEFAULT_HEAP_TRIM.burstChecks; i++) trim.checked();
  trim.dispose();
  assert.equal(trim.collections, 1);
  assert.equal(ref.deref(), undefined);
});
