// Discovery order, checked on fake directory trees: nothing here is loaded.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { discoverNvrtc, findBuiltinsNextTo, versionFromFileName, type DiscoveryOptions, type NvrtcDiscoveryStep } from "./discover";

function tempTree(t: { after(fn: () => void): void }): (relative: string) => string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-discover-"));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  return (relative: string) => path.join(root, relative);
}

function touch(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "not really a library");
  return file;
}

function candidatePaths(steps: Iterable<NvrtcDiscoveryStep>): string[] {
  return [...steps].flatMap((s) => (s.kind === "candidate" ? [s.path] : []));
}

test("discovery tries every source in the documented order", (t) => {
  const at = tempTree(t);
  const explicit = touch(at("explicit/libnvrtc.so.12"));
  const cudaPath = touch(at("toolkit-path/lib64/libnvrtc.so.12"));
  const cudaHome = touch(at("toolkit-home/lib64/libnvrtc.so"));
  const cuda124 = touch(at("sys/usr/local/cuda-12.4/lib64/libnvrtc.so.12"));
  touch(at("sys/usr/local/cuda-11.8/lib64/libnvrtc.so.11.2"));
  fs.symlinkSync(at("sys/usr/local/cuda-11.8"), at("sys/usr/local/cuda")); // default is the older one
  const debian = touch(at("sys/usr/lib/x86_64-linux-gnu/libnvrtc.so.11.2"));
  const arm = touch(at("sys/usr/lib/aarch64-linux-gnu/libnvrtc.so.12"));
  const userWheel = touch(at("home/.local/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"));
  const conda = touch(at("conda/lib/libnvrtc.so.12"));
  const probedWheel = touch(at("venv/site-packages/nvidia/cu13/lib/libnvrtc.so.13"));

  const options: DiscoveryOptions = {
    env: {
      CUDASCRIPT_NVRTC: explicit,
      CUDA_PATH: at("toolkit-path"),
      CUDA_HOME: at("toolkit-home"),
      CONDA_PREFIX: at("conda"),
    },
    platform: "linux",
    homeDir: at("home"),
    systemRoot: at("sys"),
    pythonSitePackages: () => [at("venv/site-packages")],
  };
  const steps = [...discoverNvrtc(options)];
  const found = candidatePaths(steps);
  const loaderNames = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"];
  assert.deepEqual(found, [
    explicit,
    cudaPath,
    cudaHome,
    cuda124, // newest toolkit first, even though /usr/local/cuda links to 11.8
    at("sys/usr/local/cuda/lib64/libnvrtc.so.11.2"), // = cuda118, found once, under its default name
    debian,
    arm,
    userWheel,
    conda,
    ...loaderNames,
    probedWheel, // python is asked last
  ]);
  const reasons = new Map(steps.flatMap((s) => (s.kind === "candidate" ? [[s.path, s.reason] as const] : [])));
  assert.match(reasons.get(explicit)!, /CUDASCRIPT_NVRTC/);
  assert.match(reasons.get(cudaHome)!, /CUDA_HOME/);
  assert.match(reasons.get(cuda124)!, /cuda-12\.4/);
  assert.match(reasons.get(userWheel)!, /pip wheel/);
  assert.match(reasons.get(conda)!, /conda/);
});

test("python is only asked when every cheaper candidate was rejected", (t) => {
  const at = tempTree(t);
  const debian = touch(at("sys/usr/lib/x86_64-linux-gnu/libnvrtc.so.11.2"));
  let asked = 0;
  const options: DiscoveryOptions = {
    env: {},
    platform: "linux",
    homeDir: at("home"),
    systemRoot: at("sys"),
    includeLoaderSearch: false,
    pythonSitePackages: () => {
      asked++;
      return [];
    },
  };
  // A loader that accepts the first candidate stops pulling: python never runs.
  for (const step of discoverNvrtc(options)) {
    if (step.kind === "candidate") {
      assert.equal(step.path, debian);
      break;
    }
  }
  assert.equal(asked, 0);
  [...discoverNvrtc(options)];
  assert.equal(asked, 1);
});

test("an explicit CUDASCRIPT_NVRTC that does not exist is still tried first, so its failure is reported (and loading stops there)", (t) => {
  const at = tempTree(t);
  const missing = at("nowhere/libnvrtc.so.12");
  const steps = [...discoverNvrtc({ env: { CUDASCRIPT_NVRTC: missing }, systemRoot: at("sys"), homeDir: at("home"), pythonSitePackages: () => [] })];
  assert.deepEqual(steps[0], { kind: "candidate", path: missing, reason: "environment variable CUDASCRIPT_NVRTC" });
});

test("CUDASCRIPT_NVRTC may name a directory", (t) => {
  const at = tempTree(t);
  const lib = touch(at("dir/libnvrtc.so.12"));
  touch(at("dir/libnvrtc-builtins.so.12.4"));
  touch(at("dir/libnvrtc_static.a"));
  const found = candidatePaths(discoverNvrtc({ env: { CUDASCRIPT_NVRTC: at("dir") }, systemRoot: at("sys"), includeLoaderSearch: false, pythonSitePackages: () => [] }));
  assert.deepEqual(found, [lib]);
});

test("places without NVRTC are reported as misses, with why", (t) => {
  const at = tempTree(t);
  fs.mkdirSync(at("toolkit/lib64"), { recursive: true });
  touch(at("toolkit/lib64/libcudart.so.13"));
  const steps = [
    ...discoverNvrtc({
      env: { CUDA_HOME: at("toolkit"), CUDA_PATH: at("absent") },
      systemRoot: at("sys"),
      homeDir: at("home"),
      includeLoaderSearch: false,
      pythonSitePackages: () => {
        throw new Error("python3 not found");
      },
    }),
  ];
  assert.deepEqual(
    steps.map((s) => (s.kind === "miss" ? `${s.place}: ${s.why}` : `candidate ${s.path}`)),
    [
      `${at("absent/lib64")}: directory does not exist`,
      `${at("toolkit/lib64")}: no NVRTC library in this directory`,
      "python3 site-packages: python3 not found",
    ],
  );
});

test("several names in one directory: the soname a package installs comes first, duplicates by real path are dropped", (t) => {
  const at = tempTree(t);
  const real = touch(at("sys/usr/lib/x86_64-linux-gnu/libnvrtc.so.11.8.89"));
  fs.symlinkSync(real, at("sys/usr/lib/x86_64-linux-gnu/libnvrtc.so.11.2"));
  const other = touch(at("sys/usr/lib/x86_64-linux-gnu/libnvrtc.so.12"));
  const found = candidatePaths(discoverNvrtc({ env: {}, systemRoot: at("sys"), homeDir: at("home"), includeLoaderSearch: false, pythonSitePackages: () => [] }));
  assert.deepEqual(found, [other, at("sys/usr/lib/x86_64-linux-gnu/libnvrtc.so.11.2")]);
});

test("the builtins library matching the NVRTC version is preferred", (t) => {
  const at = tempTree(t);
  const nvrtc = touch(at("lib/libnvrtc.so.12"));
  touch(at("lib/libnvrtc-builtins.so.11.8"));
  touch(at("lib/libnvrtc-builtins.so.12.4"));
  touch(at("lib/libnvrtc-builtins.so.12.4.127"));
  touch(at("lib/libnvrtc-builtins.so.12.6"));
  assert.deepEqual(findBuiltinsNextTo(nvrtc, { major: 12, minor: 4 }).map((p) => path.basename(p)), [
    "libnvrtc-builtins.so.12.4",
    "libnvrtc-builtins.so.12.4.127",
    "libnvrtc-builtins.so.12.6",
    "libnvrtc-builtins.so.11.8",
  ]);
  // Without a known version, the file name's major picks the newest of that major.
  assert.equal(path.basename(findBuiltinsNextTo(nvrtc)[0]!), "libnvrtc-builtins.so.12.6");
  assert.deepEqual(findBuiltinsNextTo("libnvrtc.so.12"), []);
});

test("versions are read from library file names", () => {
  assert.deepEqual(versionFromFileName("/usr/lib/libnvrtc.so.11.8.89"), { major: 11, minor: 8 });
  assert.deepEqual(versionFromFileName("libnvrtc.so.12"), { major: 12 });
  assert.equal(versionFromFileName("libnvrtc.so"), undefined);
});

test("CUDASCRIPT_NVRTC=off hides NVRTC", () => {
  const steps = [...discoverNvrtc({ env: { CUDASCRIPT_NVRTC: "off", CUDA_HOME: "/usr/local/cuda" }, pythonSitePackages: () => assert.fail("python asked") })];
  assert.deepEqual(steps, [
    { kind: "miss", place: "CUDASCRIPT_NVRTC=off", reason: "environment variable CUDASCRIPT_NVRTC", why: "NVRTC disabled on purpose" },
  ]);
});
