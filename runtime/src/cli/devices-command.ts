/**
 * `cudascript devices [--json]`: the CUDA devices kernels can run on (compute capability, memory,
 * multiprocessors), or "no CUDA devices: running on the simulator" with the reason. Exit code 0
 * either way (2 for usage errors).
 */
import { printUsageError, startCommand, type Command } from "./args";
import { deviceRow, formatDevice } from "./doctor-command";
import { probeGpu, shortReason } from "../host/gpu-probe";

const USAGE = `Usage: cudascript devices [--json]

Lists the CUDA devices kernels can run on; without any, says why kernels run on the simulator.
  --json      the list as JSON ([] when there is none)
  -h, --help  this text
  --version   the version of cudascript`;

export const devicesCommand: Command = async (argv) => {
  const args = startCommand(argv, { json: { type: "boolean" } }, USAGE);
  if (typeof args === "number") return args;
  if (args.positional.length) return printUsageError(`unexpected argument '${args.positional[0]}'`, USAGE);
  const probe = probeGpu();
  const rows = probe.ok ? probe.devices.map((d) => deviceRow(d)) : [];
  if (args.flags.has("json")) {
    console.log(JSON.stringify(probe.ok ? { devices: rows, driver: { path: probe.driver.info.path, version: `${probe.driverVersion.major}.${probe.driverVersion.minor}`, testDouble: probe.driver.info.isTestDouble } } : { devices: [], reason: shortReason(probe), code: probe.code }, null, 2));
    return 0;
  }
  if (!probe.ok) {
    console.log(`no CUDA devices: running on the simulator (${shortReason(probe)}). 'npx cudascript doctor' shows how to fix it.`);
    return 0;
  }
  const v = probe.driverVersion;
  console.log(`${rows.length} CUDA device${rows.length === 1 ? "" : "s"} (driver ${probe.driver.info.path}, CUDA ${v.major}.${v.minor}${probe.driver.info.isTestDouble ? ", the libcuda TEST DOUBLE" : ""}):`);
  for (const r of rows) console.log(formatDevice(r).join("\n"));
  return 0;
};
