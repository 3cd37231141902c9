/** The DLPack koffi structs (native-bindings/dlpack), loaded at first use: a program that never shares memory loads no koffi for them. */
import type * as DlpackBindings from "@cudascript/native-bindings/dlpack";

export function dlpackBindings(): typeof DlpackBindings {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@cudascript/native-bindings/dlpack") as typeof DlpackBindings;
}
