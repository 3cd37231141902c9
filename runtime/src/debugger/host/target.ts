/**
 * What the debug adapter debugs: a `DebugTarget` has DebugSession's public methods and properties. It is
 * a DebugSession in the adapter's own thread (one kernel launch written out in the configuration), or
 * `remoteSession`: a stand-in for the DebugSession of the launch a host program is stopped in, in the
 * program's thread (host-program.ts), whose every member is a synchronous call there (rpc.ts).
 */
import { DebugSession } from "../session";
import type { SyncCaller } from "./rpc";

export type DebugTarget = { [K in keyof DebugSession]: DebugSession[K] };

/**
 * A DebugTarget whose members are calls through `caller`. Generic: which names are methods and which
 * are getters is read from DebugSession's prototype, so members added to DebugSession need nothing here.
 */
export function remoteSession(caller: SyncCaller): DebugTarget {
  return new Proxy({} as DebugTarget, {
    get(_, name) {
      if (typeof name !== "string") return undefined;
      const d = memberOf(name);
      if (d?.get) return caller.call(name, []);
      if (typeof d?.value === "function") return (...args: unknown[]) => caller.call(name, args);
      return undefined;
    },
  });
}

function memberOf(name: string): PropertyDescriptor | undefined {
  if (name === "constructor") return undefined;
  for (let p: object | null = DebugSession.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const d = Object.getOwnPropertyDescriptor(p, name);
    if (d) return d;
  }
  return undefined;
}
