/**
 * A stand-in for a Kubernetes API server, on loopback, for the kubernetes launcher's tests: it answers
 * the calls the launcher makes (create a Service and a Job, read the Job's status, list its pods, read
 * their logs, delete both) and plays the Job controller and the kubelet: each "pod" of an Indexed Job
 * is a local process running the manifest's command (`npx cudascript run …` becomes this checkout's
 * CLI) with the manifest's environment and JOB_COMPLETION_INDEX, and the pod DNS name in
 * CUDASCRIPT_DIST_ADDR resolved to 127.0.0.1, as cluster DNS would resolve it to rank 0's pod. One
 * failed pod fails the Job and ends the others (backoffLimit 0). It is a test double: the real API's
 * validation is not here (the launcher checks its manifests against the API's types itself).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { CLI } from "./helpers";
import { REPO } from "../simulator/helpers";

interface FakePod {
  readonly index: number;
  readonly name: string;
  readonly child: ChildProcess;
  log: string;
  exit?: { code: number; reason: string; at: string; signal?: number };
}

export interface FakeApi {
  readonly url: string;
  readonly requests: string[];
  readonly created: { service?: any; job?: any };
  readonly deleted: string[];
  /** Pids of every pod process it started. */
  readonly pids: number[];
  /** Answer creates of Jobs with this HTTP status instead (e.g. 403). */
  refuseJobs?: number;
  close(): Promise<void>;
}

export async function startFakeApi(): Promise<FakeApi> {
  let pods: FakePod[] = [];
  let jobFailed = false;
  const api: FakeApi = {
    url: "",
    requests: [],
    created: {},
    deleted: [],
    pids: [],
    close: () =>
      new Promise((resolve) => {
        for (const p of pods) if (!p.exit) p.child.kill("SIGKILL");
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const startPods = (job: any) => {
    const n = job.spec.completions as number;
    const container = job.spec.template.spec.containers[0];
    const [npx, cli, ...args] = container.command as string[];
    if (npx !== "npx" || cli !== "cudascript") throw new Error(`unexpected command ${container.command.join(" ")}`);
    const env: NodeJS.ProcessEnv = { ...process.env, CUDASCRIPT_BACKEND: "" };
    for (const { name, value } of container.env as { name: string; value: string }[]) env[name] = value;
    env.CUDASCRIPT_DIST_ADDR = env.CUDASCRIPT_DIST_ADDR!.replace(/^[^:]+/, "127.0.0.1");
    pods = Array.from({ length: n }, (_, index) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, env: { ...env, JOB_COMPLETION_INDEX: String(index) }, stdio: ["ignore", "pipe", "pipe"] });
      const pod: FakePod = { index, name: `${job.metadata.name}-${index}-abcde`, child, log: "" };
      api.pids.push(child.pid!);
      child.stdout!.on("data", (d) => (pod.log += d));
      child.stderr!.on("data", (d) => (pod.log += d));
      child.on("exit", (code, signal) => {
        pod.exit = { code: code ?? 128 + 9, reason: signal ? "Error" : code === 0 ? "Completed" : "Error", at: new Date().toISOString(), ...(signal ? { signal: 9 } : {}) };
        if (pod.exit.code !== 0 && !jobFailed) {
          jobFailed = true;
          for (const other of pods) if (!other.exit) other.child.kill("SIGTERM");
        }
      });
      return pod;
    });
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const url = new URL(req.url!, "http://x");
      api.requests.push(`${req.method} ${url.pathname}`);
      const m = /^\/(?:api\/v1|apis\/batch\/v1)\/namespaces\/([^/]+)\/(services|jobs|pods)(?:\/([^/]+))?(?:\/(status|log))?$/.exec(url.pathname);
      if (!m) return json(res, 404, { kind: "Status", apiVersion: "v1", status: "Failure", message: `no route ${url.pathname}`, code: 404 });
      const [, , kind, name, sub] = m;
      if (req.method === "POST" && kind === "services") {
        api.created.service = JSON.parse(body);
        return json(res, 201, api.created.service);
      }
      if (req.method === "POST" && kind === "jobs") {
        if (api.refuseJobs) return json(res, api.refuseJobs, { kind: "Status", apiVersion: "v1", status: "Failure", message: 'jobs.batch is forbidden: User "ci" cannot create resource "jobs"', reason: "Forbidden", code: api.refuseJobs });
        api.created.job = JSON.parse(body);
        startPods(api.created.job);
        return json(res, 201, api.created.job);
      }
      if (req.method === "GET" && kind === "jobs" && sub === "status") {
        const succeeded = pods.filter((p) => p.exit?.code === 0).length;
        const failed = pods.filter((p) => p.exit && p.exit.code !== 0).length;
        const allDone = pods.every((p) => p.exit);
        const conditions = jobFailed && allDone ? [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }] : [];
        return json(res, 200, { ...api.created.job, status: { succeeded, ...(jobFailed && allDone ? { failed } : {}), conditions } });
      }
      if (req.method === "GET" && kind === "pods" && !name) {
        const items = pods.map((p) => ({
          metadata: { name: p.name, annotations: { "batch.kubernetes.io/job-completion-index": String(p.index) }, labels: { "job-name": api.created.job.metadata.name } },
          status: { phase: p.exit ? (p.exit.code === 0 ? "Succeeded" : "Failed") : "Running", containerStatuses: [{ name: "rank", ready: false, restartCount: 0, image: "x", imageID: "x", state: p.exit ? { terminated: { exitCode: p.exit.code, reason: p.exit.reason, finishedAt: p.exit.at, ...(p.exit.signal ? { signal: p.exit.signal } : {}) } } : { running: {} } }] },
        }));
        return json(res, 200, { kind: "PodList", apiVersion: "v1", metadata: {}, items });
      }
      if (req.method === "GET" && kind === "pods" && sub === "log") {
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end(pods.find((p) => p.name === name)?.log ?? "");
      }
      if (req.method === "DELETE") {
        api.deleted.push(`${kind}/${name}`);
        if (kind === "jobs") for (const p of pods) if (!p.exit) p.child.kill("SIGKILL");
        return json(res, 200, { kind: "Status", apiVersion: "v1", status: "Success", code: 200 });
      }
      json(res, 405, { kind: "Status", apiVersion: "v1", status: "Failure", message: "not in the fake", code: 405 });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  (api as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}
