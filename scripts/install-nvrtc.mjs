#!/usr/bin/env node
// Optional step of `npm run setup`: makes NVRTC available so kernels compile to PTX.
// On Debian as root it installs NVRTC 11.8 from Debian's non-free component; anywhere else it only
// says what to install. It never fails the setup: everything except PTX works without NVRTC.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";

const CANDIDATES = [
  "/usr/lib/x86_64-linux-gnu/libnvrtc.so.11.2",
  "/usr/lib/aarch64-linux-gnu/libnvrtc.so.11.2",
  "/usr/local/cuda/lib64/libnvrtc.so",
];
const SOURCES = "/etc/apt/sources.list.d/debian-nonfree.sources";

function found() {
  if (process.env.CUDASCRIPT_NVRTC && existsSync(process.env.CUDASCRIPT_NVRTC)) return process.env.CUDASCRIPT_NVRTC;
  return CANDIDATES.find((p) => existsSync(p));
}

function isDebianBookworm() {
  try {
    const os = readFileSync("/etc/os-release", "utf8");
    return /ID=debian/.test(os) && /VERSION_CODENAME=bookworm/.test(os);
  } catch {
    return false;
  }
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: "inherit" });
  return r.status === 0;
}

const already = found();
if (already) {
  console.log(`NVRTC: found ${already}`);
  process.exit(0);
}
const advice =
  "NVRTC not found: kernels will check and run in the simulator, but not compile to PTX.\n" +
  "  Debian/Ubuntu: enable the non-free component and install libnvrtc11.2 (Debian) or the CUDA toolkit;\n" +
  "  or `pip install nvidia-cuda-nvrtc-cu12` and set CUDASCRIPT_NVRTC to its libnvrtc.so.";
if (process.platform !== "linux" || typeof process.getuid !== "function" || process.getuid() !== 0 || !isDebianBookworm()) {
  console.log(advice);
  process.exit(0);
}
console.log("NVRTC: installing libnvrtc11.2 from Debian's non-free component…");
if (!existsSync(SOURCES)) {
  writeFileSync(
    SOURCES,
    "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
  );
}
const ok = run("apt-get", ["update", "-qq"]) && run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "libnvrtc11.2"]);
const now = found();
console.log(ok && now ? `NVRTC: installed ${now}` : `NVRTC: install failed. ${advice}`);
process.exit(0);
