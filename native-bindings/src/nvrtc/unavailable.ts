// The "NVRTC is not installed" diagnostic. It is returned, never thrown: a missing optional
// native library must degrade features (no PTX, no register counts), not crash the extension.

/** One place the loader looked, and why it did not give a working NVRTC. */
export interface NvrtcAttempt {
  /** A library path, a bare soname, or a directory that held no library. */
  place: string;
  /** Why this place was on the list (e.g. "environment variable CUDA_HOME"). */
  reason: string;
  /** Why it failed. */
  failure: string;
}

export const NVRTC_UNAVAILABLE_CODE = "CSN001";

export const NVRTC_INSTALL_HINT = [
  "Install NVRTC (the CUDA runtime compiler library) in one of these ways:",
  "  - Debian: enable the non-free component in your APT sources, then `sudo apt-get update && sudo apt-get install libnvrtc11.2`",
  "    (Ubuntu: enable multiverse and install the libnvrtc package of your release).",
  "  - Install the CUDA Toolkit (https://developer.nvidia.com/cuda-downloads); if it is not under /usr/local/cuda, set CUDA_PATH to its root.",
  "  - `pip install nvidia-cuda-nvrtc-cu12`, then set CUDASCRIPT_NVRTC to the installed",
  "    <site-packages>/nvidia/cuda_nvrtc/lib/libnvrtc.so.12.",
  "Or point CUDASCRIPT_NVRTC at any libnvrtc.so you already have.",
].join("\n");

export class NvrtcUnavailable extends Error {
  readonly code = NVRTC_UNAVAILABLE_CODE;
  /** Every place tried, in order, with why it failed. */
  readonly attempts: readonly NvrtcAttempt[];

  constructor(attempts: NvrtcAttempt[], summary?: string) {
    const headline = summary ?? "NVRTC was not found, so CUDA C++ cannot be compiled to PTX here.";
    const tried =
      attempts.length === 0
        ? "No place to look for NVRTC was found."
        : ["Places tried:", ...attempts.map((a) => `  - ${a.place} (${a.reason}): ${a.failure}`)].join("\n");
    super(`${NVRTC_UNAVAILABLE_CODE}: ${headline}\n${NVRTC_INSTALL_HINT}\n${tried}`);
    this.name = "NvrtcUnavailable";
    this.attempts = attempts;
  }
}
