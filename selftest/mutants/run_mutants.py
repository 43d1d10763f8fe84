#!/usr/bin/python3
"""The mutation suite's driver (CTest `mutation`, in the lab).

Per device (side by side): one probe of the unmutated device, a plain run and a `control`
run over the tests every mutant concerns, then each mutant's run with libmutants.so
preloaded (RDMACHECK_MUTANT=<name>) over its own suites and filter, all from that probe
(--capabilities: the probe never sees a mutant). A mutant is killed when its run exits 1
with at least one `fail`. Writes OUT/mutation.json (per device and mutant: killed, the
tests that killed it; the score) and each run's results under OUT/<device>/<mutant>/.

Exit 0 when the control's verdicts equal the plain run's on every device, no run failed
to start, the score on --gate_device reaches --min_score, and each survivor there is
explained in its mutant's source; else 1 (the reason on stderr).

  run_mutants.py --rdmacheck build/rdmacheck --library build/selftest/mutants/libmutants.so \
      --table build/selftest/mutants/rdmacheck_mutants --out out/mutation [--devices rxe0,siw0] [--mutants a,b]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rdmacheck", required=True)
    p.add_argument("--library", required=True)
    p.add_argument("--table", required=True, help="the rdmacheck_mutants program (prints the table)")
    p.add_argument("--out", required=True)
    p.add_argument("--devices", default="rxe0,siw0")
    p.add_argument("--mutants", default="", help="only these (comma-separated); default all")
    p.add_argument("--timeout_multiplier", default="4")
    p.add_argument("--jobs", type=int, default=2, help="runs at once per device (most of a run is waiting)")
    p.add_argument("--gate_device", default="rxe0")
    p.add_argument("--min_score", type=float, default=0.95)
    return p.parse_args()


def applies(mutant, device):
    return not mutant["devices"] or device in mutant["devices"].split(",")


def union(mutants):
    """The suites and filter that cover every mutant's tests."""
    suites = sorted({s for m in mutants for s in m["suites"].split(",") if s})
    filters = [m["filter"] for m in mutants if m["filter"]]
    return ",".join(suites), ":".join(filters)


class Device:
    def __init__(self, args, device):
        self.args, self.device = args, device
        self.dir = os.path.join(args.out, device)
        self.probe = os.path.join(self.dir, "capabilities.json")
        os.makedirs(self.dir, exist_ok=True)

    def log(self, name):
        return open(os.path.join(self.dir, name + ".log"), "w")

    def do_probe(self):
        with self.log("probe") as log:
            cmd = [self.args.rdmacheck, "probe", f"--device={self.device}", "--format=json", f"--out={self.probe}",
                   f"--timeout_multiplier={self.args.timeout_multiplier}"]
            return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode

    def run(self, name, suites, gtest_filter, mutant):
        """One `rdmacheck run`; returns (exit code, results.json or None, seconds)."""
        out = os.path.join(self.dir, name)
        cmd = [self.args.rdmacheck, "run", f"--device={self.device}", f"--capabilities={self.probe}", f"--out={out}",
               f"--timeout_multiplier={self.args.timeout_multiplier}"]
        if suites:
            cmd.append(f"--suites={suites}")
        if gtest_filter:
            cmd.append(f"--gtest_filter={gtest_filter}")
        env = dict(os.environ)
        if mutant:
            env["LD_PRELOAD"] = os.path.abspath(self.args.library)
            env["RDMACHECK_MUTANT"] = mutant
        start = time.monotonic()
        with self.log(name) as log:
            rc = subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
        seconds = round(time.monotonic() - start, 1)
        path = os.path.join(out, "results.json")
        results = json.load(open(path)) if os.path.exists(path) else None
        return rc, results, seconds


def statuses(results):
    return {t["name"]: t["status"] for t in results["tests"]} if results else {}


def run_device(args, device, mutants):
    d = Device(args, device)
    start = time.monotonic()
    entry = {"device": device, "mutants": [], "errors": []}
    if d.do_probe() != 0:
        entry["errors"].append(f"the probe of {device} failed (see {d.dir}/probe.log)")
        return entry
    mine = [m for m in mutants if m["name"] != "control" and applies(m, device)]
    suites, gtest_filter = union(mine)
    pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
    plain_run = pool.submit(d.run, "plain", suites, gtest_filter, None)
    control_run = pool.submit(d.run, "control", suites, gtest_filter, "control")
    (plain_rc, plain, _), (control_rc, control, _) = plain_run.result(), control_run.result()
    if plain is None or control is None:
        entry["errors"].append(f"{device}: the plain or control run wrote no results (exit {plain_rc}, {control_rc})")
    differ = {n: [s, statuses(control).get(n)] for n, s in statuses(plain).items() if statuses(control).get(n) != s}
    differ.update({n: [None, s] for n, s in statuses(control).items() if n not in statuses(plain)})
    entry["control"] = {"equal": not differ and plain_rc == control_rc, "tests": len(statuses(plain)),
                        "plain_exit": plain_rc, "control_exit": control_rc,
                        "differences": {n: {"plain": p, "control": c} for n, (p, c) in differ.items()}}
    runs = [pool.submit(d.run, m["name"], m["suites"], m["filter"], m["name"]) for m in mine]
    for m, run in zip(mine, runs):
        rc, results, seconds = run.result()
        tests = results["tests"] if results else []
        killers = [t["name"] for t in tests if t["status"] == "fail"]
        if rc not in (0, 1) or results is None:
            entry["errors"].append(f"{device} {m['name']}: the run exited {rc} (see {d.dir}/{m['name']}.log)")
        entry["mutants"].append({
            "name": m["name"], "device": device, "what": m["what"], "suites": m["suites"], "filter": m["filter"],
            "killed": rc == 1 and bool(killers), "killed_by": killers, "exit": rc, "seconds": seconds,
            "tests": len(tests), "survives": m["survives"]})
    pool.shutdown()
    killed = sum(m["killed"] for m in entry["mutants"])
    entry["score"] = {"killed": killed, "total": len(entry["mutants"]),
                      "ratio": round(killed / len(entry["mutants"]), 4) if entry["mutants"] else None}
    entry["seconds"] = round(time.monotonic() - start, 1)
    return entry


def main():
    args = parse_args()
    table = json.loads(subprocess.run([args.table], check=True, capture_output=True, text=True).stdout)
    wanted = [n for n in args.mutants.split(",") if n]
    unknown = [n for n in wanted if n not in {m["name"] for m in table}]
    if unknown:
        print(f"run_mutants: unknown mutant(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    mutants = [m for m in table if not wanted or m["name"] in wanted or m["name"] == "control"]
    devices = [d for d in args.devices.split(",") if d]
    os.makedirs(args.out, exist_ok=True)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(devices)) as pool:
        entries = list(pool.map(lambda dev: run_device(args, dev, mutants), devices))
    report = {"schema": "rdmacheck.mutation/1", "seconds": round(time.monotonic() - start, 1),
              "mutant_count": len(table), "devices": entries}
    path = os.path.join(args.out, "mutation.json")
    with open(path, "w") as f:
        json.dump(report, f, indent=2)

    problems = [e for entry in entries for e in entry["errors"]]
    for entry in entries:
        s = entry.get("score", {})
        survivors = [m["name"] for m in entry["mutants"] if not m["killed"]]
        print(f"run_mutants: {entry['device']}: {s.get('killed')}/{s.get('total')} killed, control "
              f"{'equal to' if entry.get('control', {}).get('equal') else 'DIFFERENT from'} the plain run, "
              f"{entry.get('seconds')} s; survivors: {', '.join(survivors) or 'none'}", file=sys.stderr)
        if not entry.get("control", {}).get("equal"):
            problems.append(f"{entry['device']}: the control's verdicts differ from a plain run's: "
                            f"{entry.get('control', {}).get('differences')}")
        if entry["device"] == args.gate_device and s.get("total"):
            if s["ratio"] < args.min_score:
                problems.append(f"{entry['device']}: score {s['ratio']:.0%} below {args.min_score:.0%}")
            unexplained = [m["name"] for m in entry["mutants"] if not m["killed"] and not m["survives"]]
            if unexplained:
                problems.append(f"{entry['device']}: survivors not explained in their source: {', '.join(unexplained)}")
    print(f"run_mutants: wrote {path} ({report['seconds']} s)", file=sys.stderr)
    for p in problems:
        print(f"run_mutants: FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
