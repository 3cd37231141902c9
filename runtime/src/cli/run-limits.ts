/** Limits shared by `cudascript run` (the parent) and its child process. */

/** After the deadline, the simulator gets this long to stop the kernel and report before the parent kills the child. */
export const KILL_GRACE_MS = 2500;

/**
 * The child's own watchdog kills the program this long after the parent would have: the parent's kill
 * comes with the clear message; the watchdog is the backstop when the parent cannot act.
 */
export const WATCHDOG_MARGIN_MS = 1500;

/** Environment variables the parent passes to the child for its watchdog. */
export const PARENT_PID_ENV = "CUDASCRIPT_RUN_PARENT";
export const TEMP_DIR_ENV = "CUDASCRIPT_RUN_TEMP";

/** Temporary folders are named `cudascript-run-<pid of the parent>-XXXXXX`, so a later run can tell abandoned ones. */
export const TEMP_PREFIX = "cudascript-run-";
