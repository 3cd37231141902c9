/**
 * The simulator's virtual devices (CUDASCRIPT_SIM_DEVICES), and `cudascript doctor`'s NCCL line against
 * a stand-in libnccl.so.2 built here with g++ (a test double exporting only ncclGetVersion: there is
 * no NCCL on this machine) — the discovery and version decoding are real.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { SimulatorBackend } from "cudascript/dist/simulator/backend";
import { ncclVersionText } from "cudascript/dist/distributed/nccl";
import { CLI } from "./helpers";

function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

describe("the simulator's virtual devices", () => {
  it("CUDASCRIPT_SIM_DEVICES=4 lists 4 devices, starts on CUDASCRIPT_DEVICE, and selectDevice takes 0-3 only (CSR014 past them)", () => {
    const b = withEnv({ CUDASCRIPT_SIM_DEVICES: "4", CUDASCRIPT_DEVICE: "2" }, () => new SimulatorBackend("simulator", { workers: 1 }));
    try {
      assert.deepEqual(b.devices().map((d) => d.id), [0, 1, 2, 3]);
      assert.equal(b.selectedDevice, 2);
      b.selectDevice(3);
      assert.equal(b.selectedDevice, 3);
      assert.throws(() => b.selectDevice(4), /CSR014: device 4 does not exist: the simulator has 4 virtual devices, 0 to 3 \(CUDASCRIPT_SIM_DEVICES\)/);
    } finally {
      b.dispose();
    }
    const one = withEnv({ CUDASCRIPT_SIM_DEVICES: "" }, () => new SimulatorBackend("simulator", { workers: 1 }));
    try {
      assert.equal(one.devices().length, 1);
      assert.throws(() => one.selectDevice(1), /the simulator has one device, 0/);
    } finally {
      one.dispose();
    }
    assert.throws(() => withEnv({ CUDASCRIPT_SIM_DEVICES: "many" }, () => new SimulatorBackend("simulator", { workers: 1 })), /CSR018: CUDASCRIPT_SIM_DEVICES=many is not a number of virtual devices/);
  });
});

describe("cudascript doctor and NCCL", () => {
  it("decodes ncclGetVersion's code", () => {
    assert.equal(ncclVersionText(21903), "2.19.3");
    assert.equal(ncclVersionText(2708), "2.7.8");
  });

  const gxx = spawnSync("g++", ["--version"]).status === 0;
  it("reports a libnccl.so.2 found through CUDASCRIPT_NCCL with its version, and says when there is none", { skip: !gxx && process.env.CI !== "true" ? "no g++ to build the stand-in libnccl" : false }, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-nccl-"));
    try {
      fs.writeFileSync(path.join(dir, "nccl.c"), 'extern "C" int ncclGetVersion(int *version) { *version = 21903; return 0; }\n');
      const built = spawnSync("g++", ["-shared", "-fPIC", "-o", path.join(dir, "libnccl.so.2"), path.join(dir, "nccl.c")], { encoding: "utf8" });
      assert.equal(built.status, 0, built.stderr);
      const doctor = (env: NodeJS.ProcessEnv) => {
        const r = spawnSync(process.execPath, [CLI, "doctor", "--json"], { encoding: "utf8", env: { ...process.env, ...env } });
        return (JSON.parse(r.stdout) as { nccl: { ok: boolean; path?: string; version?: string; reason?: string } }).nccl;
      };
      assert.deepEqual(doctor({ CUDASCRIPT_NCCL: dir }), { ok: true, path: path.join(dir, "libnccl.so.2"), version: "2.19.3" });
      const none = doctor({ CUDASCRIPT_NCCL: path.join(dir, "missing.so") });
      assert.equal(none.ok, false);
      assert.match(none.reason!, /missing\.so/);
      const text = spawnSync(process.execPath, [CLI, "doctor"], { encoding: "utf8", env: { ...process.env, CUDASCRIPT_NCCL: dir } }).stdout;
      assert.match(text, /NCCL {16}.*libnccl\.so\.2 \(NCCL 2\.19\.3\)/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
