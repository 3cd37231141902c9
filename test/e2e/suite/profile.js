// Profile (issue 34 item 3) in the real extension host: the results panel's Profile section, the
// editor's heat marks and hovers on the profiled lines, their clearing on an edit, and the Profile
// command on a kernel of the transpose fixture (test/e2e/workspace/transpose.ts).
"use strict";
const assert = require("node:assert/strict");
const vscode = require("vscode");

/** @param {{ test: Function, api: () => any, until: Function, openTs: Function, fileUri: Function, renderedSummary: Function, hoverText: Function }} t */
function register({ test, api, until, openTs, fileUri, renderedSummary, hoverText }) {
  const profiledSummary = (key, timeout) =>
    until(`the Profile section of ${key}`, async () => {
      const s = await renderedSummary(key, timeout);
      return s.profile ? s : undefined;
    }, timeout);

  test("a saved profile (the transpose fixture): heat column, worst lines with advice and the roofline in the panel; heat marks and hovers in the editor, cleared by an edit", async () => {
    const doc = await openTs("transpose.ts");
    const outcome = await vscode.commands.executeCommand("cudascript.openProfile", fileUri("transpose.profile.json"));
    assert.ok(outcome && !outcome.problem, `the profile was shown (${outcome && outcome.problem})`);
    assert.equal(outcome.launches, 2);
    const summary = await profiledSummary(outcome.panelKey, 30_000);
    assert.deepEqual(summary.profile, { heatLines: 2, worst: 2, advice: 2, rooflines: 2 });
    // the editor marks the four profiled lines: the strided store (14) hottest, the column read (31) warm
    const lines = await until("the editor's profile marks", () => {
      const l = api().profiledLines(doc.uri);
      return l.length ? l : undefined;
    });
    assert.deepEqual(lines, [
      { line: 13, level: 0 },
      { line: 14, level: 5 },
      { line: 28, level: 0 },
      { line: 31, level: 1 },
    ]);
    // the hover on the store's line: its counters and the advice (the client's hover, beside the server's)
    const text = hoverText(await vscode.commands.executeCommand("vscode.executeHoverProvider", doc.uri, new vscode.Position(13, 6)));
    assert.match(text, /CudaScript profile/);
    assert.match(text, /\| global store sectors \| 1,024 \|/);
    assert.match(text, /stage through a shared tile/);
    // an edit makes the line numbers stale: the marks and hovers go
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), "// edited\n"));
    await until("the marks to be cleared", () => api().profiledLines(doc.uri).length === 0, 5000);
    const after = hoverText(await vscode.commands.executeCommand("vscode.executeHoverProvider", doc.uri, new vscode.Position(14, 6)));
    assert.doesNotMatch(after, /CudaScript profile/);
    // take the edit back and save: the file on disk stays as the fixture's line numbers expect
    await editor.edit((e) => e.delete(new vscode.Range(0, 0, 1, 0)));
    await doc.save();
    assert.equal(doc.lineAt(13).text.trim(), "out[x * n + y] = a[y * n + x];");
  });

  test("Profile on a kernel (the CodeLens's command) runs cudascript profile from its @run tag: the panel's heat column, the editor's marks", async () => {
    const outcome = await vscode.commands.executeCommand("cudascript.profile", { uri: fileUri("transpose.ts").toString(), kernel: "transposeNaive" });
    assert.ok(outcome, "Profile returned an outcome");
    assert.equal(outcome.problem, undefined, `a profile was shown (${outcome.problem})\n${outcome.run.output}`);
    assert.equal(outcome.run.state, "ok", outcome.run.message);
    assert.equal(outcome.launches, 1);
    const summary = await profiledSummary(outcome.panelKey, 60_000);
    // one launch of 32 warps: the strided store is the one costly line, with the profiler's advice
    assert.deepEqual(summary.profile, { heatLines: 1, worst: 1, advice: 1, rooflines: 1 });
    assert.deepEqual(api().profiledLines(fileUri("transpose.ts")), [
      { line: 13, level: 0 },
      { line: 14, level: 5 },
    ]);
  }, { timeout: 150_000 });

  test("Profile on a program that launches no kernel: one clear message in the panel, nothing half drawn", async () => {
    const outcome = await vscode.commands.executeCommand("cudascript.profile", fileUri("no-launch.ts"));
    assert.ok(outcome && outcome.problem, "a problem is reported");
    const summary = await profiledSummary(outcome.panelKey, 60_000);
    assert.equal(summary.profile.problem, outcome.problem);
    assert.equal(summary.profile.heatLines, 0);
    assert.match(outcome.problem, /^The program launched no kernel, so there is nothing to profile/);
    assert.deepEqual(api().profiledLines(fileUri("no-launch.ts")), []);
  }, { timeout: 150_000 });

  test("Profile on a program whose kernel the profiler cannot count (a grid barrier): its coded reason in the panel", async () => {
    const rel = "examples/laplace-grid-sync.ts";
    const outcome = await vscode.commands.executeCommand("cudascript.profile", fileUri(rel));
    assert.ok(outcome && outcome.problem, "a problem is reported");
    const summary = await profiledSummary(outcome.panelKey, 60_000);
    assert.equal(summary.profile.problem, outcome.problem);
    assert.match(outcome.problem, /^The profiler did not finish: exited with code 1: error CSR092: kernel 'solveHeatEquation' synchronises its whole grid/);
    await vscode.commands.executeCommand("workbench.action.closeMessages").then(undefined, () => undefined);
  }, { timeout: 150_000 });
}

module.exports = { register };
