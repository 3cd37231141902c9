// The process NVRTC compiles in (see isolated.ts for why it is a separate process). Two modes:
//   (default)  long-lived: compiles each IPC message { library, request } and replies { result };
//   --once     one compile: a v8-serialised { library, request } on stdin, the result on stdout.
// Nothing else may be written to stdout (the --once reply; the language server's LSP stream).
import * as fs from "node:fs";
import * as v8 from "node:v8";
import { koffi } from "../koffi";
import { loadNvrtc, type CompileRequest, type CompileResult } from "./nvrtc";

// koffi runs every native call on a stack of its own: 2 MiB for synchronous calls by default, and
// NVRTC's recursive-descent front end needs roughly 1.5 KiB of it per level of nesting. The largest
// stack koffi allows (16 MiB) compiles ~5,000 nested parentheses; it has to be set before any
// library is loaded, which only a process of our own can guarantee. CUDASCRIPT_NVRTC_STACK_KIB
// (64 to 16384) makes it smaller: tests use it to make NVRTC crash on modest input.
const MAX_STACK_KIB = 16 * 1024;
const requestedKib = Number(process.env.CUDASCRIPT_NVRTC_STACK_KIB);
const stackKib = Number.isInteger(requestedKib) && requestedKib >= 64 && requestedKib <= MAX_STACK_KIB ? requestedKib : MAX_STACK_KIB;
koffi.config({ sync_stack_size: stackKib * 1024 });

interface ChildRequest {
  library: string;
  request: CompileRequest;
}

function compileWith({ library, request }: ChildRequest): CompileResult {
  try {
    const load = loadNvrtc({ path: library });
    if (!load.ok) return { ok: false, log: load.error.message, errorCode: "NVRTC_UNAVAILABLE", millis: 0 };
    return load.nvrtc.compileInProcess(request);
  } catch (e) {
    return { ok: false, log: `the NVRTC binding failed: ${e instanceof Error ? e.message : String(e)}`, errorCode: "NVRTC_BINDING_ERROR", millis: 0 };
  }
}

if (process.argv.includes("--once")) {
  const reply = v8.serialize(compileWith(v8.deserialize(fs.readFileSync(0)) as ChildRequest));
  for (let at = 0; at < reply.length; ) at += fs.writeSync(1, reply, at);
} else {
  process.on("message", (message: ChildRequest) => process.send!({ result: compileWith(message) }));
  // The parent went away (exit, crash): nothing is left to compile for.
  process.on("disconnect", () => process.exit(0));
}
