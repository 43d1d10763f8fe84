#!/usr/bin/python3
"""The mutation suite's driver (CTest `mutation`, in the lab).

Per device (side by side): one probe of the unmutated device, a plain run and a `control`
run over the tests every mutant concerns, then each mutant twice:
  <name>         libmutants.so acts in the suite children only, behind the plain probe
                 (--capabilities);
  <name>@probe   it acts in `rdmacheck probe` too, and the run uses that probe: a deviation
                 the probe meets decides what the tests see (absent, broken, supported).
                 When that probe answers as the plain one (the mutant never acted in it, or
                 changed only the wording of a detail), the run would be <name>'s again:
                 its verdict is <name>'s ("same_as"), and only the probe is paid for.

A mutant is killed when a test that passed in the plain run (or failed there only as
expected: xfail; or a BrokenCapability.<cap> result the plain run did not have) fails in
an ordinary way under it: not abnormal (a
crash, a watchdog kill, a leak), nothing from the kernel log, and the mutant acted (the
library noted that it changed an answer: RDMACHECK_MUTANT_ACTED). The looser count of
earlier versions (the run exits 1 with any `fail`) is kept beside it as `loose_killed`.
Every run is a slice and passes `run --floor=off`: its failing RunFloor.Selection is no
`fail` of the mutant's (neither count, nor what makes a mutant applicable).

Writes OUT/mutation.json (per device and mutant: acted, killed, the tests that killed it;
the score killed/acted/total) and each run's results under OUT/<device>/<mutant>/.

Exit 0 when the control's verdicts equal the plain run's on every device, no run failed
to start, and on each gated device (--gate) the score reaches its minimum and every
survivor is explained in its mutant's source; else 1 (the reasons on stderr).

  run_mutants.py --rdmacheck build/rdmacheck --library build/selftest/mutants/libmutants.so \\
      --table build/selftest/mutants/rdmacheck_mutants --out out/mutation [--devices rxe0,siw0] [--mutants a,b@probe]
"""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import subprocess
import sys
import time

PROBE_VARIANT = "@probe"  # kProbeVariant of selftest/mutants/mutant.h
BROKEN_CAPABILITY = "BrokenCapability."  # capabilities/verdict/broken.h
LEAK_CHECK = "LeakCheck.VerbsObjectsReleased"  # runner/leak_check.h
# Every run here is a slice (mostly one test instance): `--floor=off` keeps `run` from adding
# the floor's tests to each (runner/run_floor.h: about 6 tests, seconds in the lab, times
# every run), and each run then carries this failing result, which is no verdict on the mutant.
RUN_FLOOR = "RunFloor."
FLOOR_OFF = "RunFloor.Selection"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rdmacheck", required=True)
    p.add_argument("--library", required=True)
    p.add_argument("--table", required=True, help="the rdmacheck_mutants program (prints the table)")
    p.add_argument("--out", required=True)
    p.add_argument("--devices", default="rxe0,siw0")
    p.add_argument("--mutants", default="", help="only these (comma-separated, <name> or <name>@probe); default all")
    p.add_argument("--timeout_multiplier", default="4")
    p.add_argument("--jobs", type=int, default=2, help="runs at once per device (most of a run is waiting)")
    p.add_argument("--gate", default="rxe0=0.92,siw0=0.90",
                   help="DEVICE=MIN_SCORE,...: the devices whose score and survivors decide the exit status")
    args = p.parse_args(argv)
    try:
        args.gate = {d: float(s) for d, s in (item.split("=") for item in args.gate.split(",") if item)}
    except ValueError:
        p.error(f"--gate: DEVICE=MIN_SCORE,... expected, got {args.gate!r}")
    return args


def applies(mutant, device):
    return not mutant["devices"] or device in mutant["devices"].split(",")


def union(mutants):
    """The suites and filter that cover every mutant's tests."""
    suites = sorted({s for m in mutants for s in m["suites"].split(",") if s})
    filters = [m["filter"] for m in mutants if m["filter"]]
    return ",".join(suites), ":".join(filters)


def with_variants(table):
    """Every mutant of the table, each followed by its probe-visible variant."""
    out = []
    for m in table:
        out.append(dict(m, base=m["name"], variant=""))
        if m["name"] != "control":
            out.append(dict(m, name=m["name"] + PROBE_VARIANT, base=m["name"], variant="probe",
                            what=m["what"] + "; the probe meets it too"))
    return out


def statuses(results):
    return {t["name"]: t["status"] for t in results["tests"]} if results else {}


def ordinary_failure(test, leak_kills=False):
    """A `fail` that is the test's own verdict: not a crash, watchdog kill or leak
    (`abnormal`), and not the kernel log's. `leak_kills`: the mutant is a leak (its filter
    names the leak check), so the leak check's failure is the verdict that kills it."""
    if leak_kills and test["name"] == LEAK_CHECK:
        return test["status"] == "fail" and not test.get("kernel_log")
    return (test["status"] == "fail" and not test.get("abnormal", False) and not test.get("kernel_log")
            and test["name"] != LEAK_CHECK)


def killers(plain, results, leak_kills=False):
    """The tests of `results` that kill: they passed in the plain run (or are a
    BrokenCapability.<cap> result it did not have: the capability was fine there), or
    failed there only as expected (xfail: the device's known deviation, matched by its
    own signature), and now fail in an ordinary way: a failure the deviation does not
    explain (a duplicated completion in a test that fails as expected must still fail it)."""
    out = []
    for t in results["tests"] if results else []:
        before = plain.get(t["name"])
        is_probe = t["name"].startswith(BROKEN_CAPABILITY)
        was_fine = before == "pass" or (before == "xfail" and not is_probe) or (before is None and is_probe)
        if was_fine and ordinary_failure(t, leak_kills):
            out.append(t["name"])
    return out


def answers(profile_path):
    """What of a probe's profile decides a run: the declared attributes, each capability's
    outcome and errno, the measured values, the quirks (not the wording of details, nor
    when it ran)."""
    with open(profile_path) as f:
        p = json.load(f)
    return {"declared": p.get("declared"), "quirks": p.get("quirks"),
            "observed": {c: (o.get("outcome"), o.get("errno")) for c, o in p.get("observed", {}).items()},
            "measured": {n: v.get("value") for n, v in p.get("measured", {}).items()}}


def acted_roles(path):
    """Where the mutant acted, from the library's notes ("<mutant> probe|tests <pid>")."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return sorted({line.split()[1] for line in f if len(line.split()) >= 2})


def applicable(mutant, plain, results, roles):
    """Whether the device can judge the mutant at all: it acted, or one of the tests it ran
    (those its filter names; else any but a BrokenCapability or the leak check) reached a
    verdict in the plain run. A mutant
    whose every test skips there, the capability absent (ATOMIC WRITE on a 6.1 rxe), has
    nothing to be seen by, like a mutant of another device's feature."""
    if roles:
        return True
    names = [t["name"] for t in results["tests"]] if results else []
    patterns = [p for p in mutant.get("filter", "").split("-")[0].split(":") if p]
    own = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)] if patterns else [
        n for n in names if not n.startswith((BROKEN_CAPABILITY, RUN_FLOOR)) and n != LEAK_CHECK]
    return any(plain.get(n, "skip") != "skip" for n in own)


def verdict(mutant, plain, rc, results, roles):
    """A mutant's entry: applicable, acted, killed (the strict count), loose_killed (the old count)."""
    tests = results["tests"] if results else []
    by = killers(plain, results, LEAK_CHECK in mutant.get("filter", "")) if roles else []
    return {"applicable": applicable(mutant, plain, results, roles), "acted": bool(roles), "acted_in": roles,
            "killed": rc == 1 and bool(by), "killed_by": by,
            "loose_killed": rc == 1 and any(t["status"] == "fail" and t["name"] != FLOOR_OFF for t in tests),
            "exit": rc, "tests": len(tests)}


def score(mutants):
    """killed / total over the mutants this device can judge; those it cannot are counted apart."""
    judged = [m for m in mutants if m.get("applicable", True)]
    killed = sum(m["killed"] for m in judged)
    return {"killed": killed, "acted": sum(m["acted"] for m in judged), "total": len(judged),
            "not_applicable": len(mutants) - len(judged),
            "loose_killed": sum(m["loose_killed"] for m in judged),
            "ratio": round(killed / len(judged), 4) if judged else None}


class Device:
    def __init__(self, args, device):
        self.args, self.device = args, device
        self.dir = os.path.join(args.out, device)
        self.probe = os.path.join(self.dir, "capabilities.json")
        os.makedirs(self.dir, exist_ok=True)

    def log(self, name):
        return open(os.path.join(self.dir, name + ".log"), "w")

    def env(self, mutant, acted):
        env = dict(os.environ)
        if mutant:
            env["LD_PRELOAD"] = os.path.abspath(self.args.library)
            env["RDMACHECK_MUTANT"] = mutant
        if acted:
            env["RDMACHECK_MUTANT_ACTED"] = os.path.abspath(acted)
        return env

    def do_probe(self, out, mutant=None, acted=None):
        """`rdmacheck probe` into `out`; with a probe-visible variant the library acts in it."""
        name = os.path.splitext(os.path.basename(out))[0]
        with self.log(name) as log:
            cmd = [self.args.rdmacheck, "probe", f"--device={self.device}", "--format=json", f"--out={out}",
                   f"--timeout_multiplier={self.args.timeout_multiplier}"]
            return subprocess.run(cmd, env=self.env(mutant, acted), stdout=log, stderr=subprocess.STDOUT).returncode

    def run(self, name, suites, gtest_filter, mutant, probe=None, acted=None):
        """One `rdmacheck run`; returns (exit code, results.json or None, seconds)."""
        out = os.path.join(self.dir, name)
        cmd = [self.args.rdmacheck, "run", f"--device={self.device}", f"--capabilities={probe or self.probe}",
               f"--out={out}", f"--timeout_multiplier={self.args.timeout_multiplier}", "--floor=off", "--strict"]
        if suites:
            cmd.append(f"--suites={suites}")
        if gtest_filter:
            cmd.append(f"--gtest_filter={gtest_filter}")
        start = time.monotonic()
        with self.log(name) as log:
            rc = subprocess.run(cmd, env=self.env(mutant, acted), stdout=log, stderr=subprocess.STDOUT).returncode
        seconds = round(time.monotonic() - start, 1)
        path = os.path.join(out, "results.json")
        results = json.load(open(path)) if os.path.exists(path) else None
        return rc, results, seconds

    def acted_file(self, name, where):
        path = os.path.join(self.dir, f"{name}.{where}.acted")
        if os.path.exists(path):
            os.remove(path)  # a file of an earlier run is not this run's
        return path

    def mutant(self, m, plain):
        """<name>: acts in the suite children, behind the plain probe."""
        acted = self.acted_file(m["name"], "tests")
        rc, results, seconds = self.run(m["name"], m["suites"], m["filter"], m["name"], acted=acted)
        return dict(verdict(m, plain, rc, results, acted_roles(acted)), seconds=seconds, ran=results is not None)

    def probe_variant(self, m, plain, base):
        """<name>@probe: its own probe first; a probe it never acted in is the plain one."""
        probe = os.path.join(self.dir, f"{m['name']}.capabilities.json")
        probe_acted = self.acted_file(m["name"], "probe")
        start = time.monotonic()
        probe_rc = self.do_probe(probe, m["name"], probe_acted)
        if probe_rc != 0 or not os.path.exists(probe):
            return {"acted": False, "acted_in": [], "killed": False, "killed_by": [], "loose_killed": False,
                    "exit": probe_rc, "tests": 0, "seconds": round(time.monotonic() - start, 1), "ran": False,
                    "error": f"its probe exited {probe_rc}"}
        if not acted_roles(probe_acted) or answers(probe) == answers(self.probe):
            same = dict(base.result(), same_as=m["base"])
            same["acted_in"] = sorted(set(same["acted_in"]) | set(acted_roles(probe_acted)))
            same["seconds"] = round(time.monotonic() - start, 1)
            return same
        acted = self.acted_file(m["name"], "tests")
        rc, results, seconds = self.run(m["name"], m["suites"], m["filter"], m["name"], probe=probe, acted=acted)
        roles = sorted(set(acted_roles(probe_acted)) | set(acted_roles(acted)))
        return dict(verdict(m, plain, rc, results, roles), seconds=round(time.monotonic() - start, 1),
                    ran=results is not None)


# Suites whose tests change the device's network (the link goes down, addresses come and
# go): within one `rdmacheck run` they run alone (RDMACHECK_RUNS_ALONE), but this driver runs
# several runs on a device at once. Their mutants, plain and control runs go one at a time,
# after every other run on the device has ended.
DISRUPTIVE_SUITES = {"link_events"}


def disruptive(mutant):
    return bool(set(mutant["suites"].split(",")) & DISRUPTIVE_SUITES)


def run_group(d, mine, jobs, tag):
    """Plain and control runs over `mine`'s tests, then every mutant of `mine`, `jobs` at once.
    Returns (control summary, mutant entries, errors)."""
    errors, entries = [], []
    suites, gtest_filter = union(mine)
    pool = concurrent.futures.ThreadPoolExecutor(jobs)
    plain_run = pool.submit(d.run, "plain" + tag, suites, gtest_filter, None)
    control_run = pool.submit(d.run, "control" + tag, suites, gtest_filter, "control")
    (plain_rc, plain_results, _), (control_rc, control, _) = plain_run.result(), control_run.result()
    if plain_results is None or control is None:
        errors.append(f"{d.device}: the plain or control run{tag} wrote no results (exit {plain_rc}, {control_rc})")
    plain = statuses(plain_results)
    differ = {n: [s, statuses(control).get(n)] for n, s in plain.items() if statuses(control).get(n) != s}
    differ.update({n: [None, s] for n, s in statuses(control).items() if n not in plain})
    summary = {"equal": not differ and plain_rc == control_rc, "tests": len(plain),
               "plain_exit": plain_rc, "control_exit": control_rc,
               "differences": {n: {"plain": p, "control": c} for n, (p, c) in differ.items()}}
    # Every <name> first: a variant that waits for its <name>'s verdict starts after it did.
    runs = {m["name"]: pool.submit(d.mutant, m, plain) for m in mine if not m["variant"]}
    for m in mine:
        if m["variant"]:
            base = runs.get(m["base"]) or pool.submit(d.mutant, dict(m, name=m["base"]), plain)
            runs[m["name"]] = pool.submit(d.probe_variant, m, plain, base)
    for m in mine:
        v = dict(runs[m["name"]].result())
        error, ran = v.pop("error", None), v.pop("ran")
        if error or not ran or v["exit"] not in (0, 1):
            errors.append(f"{d.device} {m['name']}: {error or 'the run exited %s' % v['exit']} "
                          f"(see {d.dir}/{m['name']}.log)")
        survives = m["survives"]
        base_killed = m["variant"] and m["base"] in runs and runs[m["base"]].result()["killed"]
        if base_killed and not v["killed"]:
            survives = None  # the tests see it, unless the probe hides it: not explained
        entries.append(dict({"name": m["name"], "base": m["base"], "variant": m["variant"],
                             "device": d.device, "what": m["what"], "suites": m["suites"],
                             "filter": m["filter"], "survives": survives}, **v))
    pool.shutdown()
    return summary, entries, errors


def run_device(args, device, mutants):
    d = Device(args, device)
    start = time.monotonic()
    entry = {"device": device, "mutants": [], "errors": []}
    if d.do_probe(d.probe) != 0:
        entry["errors"].append(f"the probe of {device} failed (see {d.dir}/capabilities.log)")
        return entry
    mine = [m for m in mutants if m["base"] != "control" and applies(m, device)]
    groups = [(g, jobs, tag) for g, jobs, tag in ((
        [m for m in mine if not disruptive(m)], args.jobs, ""), ([m for m in mine if disruptive(m)], 1, ".alone"))
        if g]
    summaries = []
    for group, jobs, tag in groups:  # the disruptive group last, alone
        summary, entries, errors = run_group(d, group, jobs, tag)
        summaries.append(summary)
        entry["mutants"] += entries
        entry["errors"] += errors
    entry["control"] = {"equal": all(s["equal"] for s in summaries), "tests": sum(s["tests"] for s in summaries),
                        "plain_exit": max([s["plain_exit"] for s in summaries], default=0),
                        "control_exit": max([s["control_exit"] for s in summaries], default=0),
                        "differences": {n: v for s in summaries for n, v in s["differences"].items()}}
    entry["score"] = score(entry["mutants"])
    entry["seconds"] = round(time.monotonic() - start, 1)
    return entry


def problems_of(entry, gate):
    """Why the device fails the suite (empty: it passes)."""
    out = list(entry["errors"])
    if not entry.get("control", {}).get("equal"):
        out.append(f"{entry['device']}: the control's verdicts differ from a plain run's: "
                   f"{entry.get('control', {}).get('differences')}")
    s = entry.get("score", {})
    if entry["device"] in gate and s.get("total"):
        if s["ratio"] < gate[entry["device"]]:
            out.append(f"{entry['device']}: score {s['ratio']:.1%} below {gate[entry['device']]:.0%}")
        unexplained = [m["name"] for m in entry["mutants"]
                       if m.get("applicable", True) and not m["killed"] and not m["survives"]]
        if unexplained:
            out.append(f"{entry['device']}: survivors not explained in their source: {', '.join(unexplained)}")
    return out


def main(argv=None):
    args = parse_args(argv)
    table = json.loads(subprocess.run([args.table], check=True, capture_output=True, text=True).stdout)
    everything = with_variants(table)
    wanted = [n for n in args.mutants.split(",") if n]
    unknown = [n for n in wanted if n not in {m["name"] for m in everything}]
    if unknown:
        print(f"run_mutants: unknown mutant(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    mutants = [m for m in everything if not wanted or m["name"] in wanted or m["name"] == "control"]
    devices = [d for d in args.devices.split(",") if d]
    os.makedirs(args.out, exist_ok=True)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(devices)) as pool:
        entries = list(pool.map(lambda dev: run_device(args, dev, mutants), devices))
    report = {"schema": "rdmacheck.mutation/2", "seconds": round(time.monotonic() - start, 1),
              "mutant_count": len(everything) - 1, "gate": args.gate, "devices": entries}
    path = os.path.join(args.out, "mutation.json")
    with open(path, "w") as f:
        json.dump(report, f, indent=2)

    problems = []
    for entry in entries:
        s = entry.get("score", {})
        survivors = [m["name"] for m in entry["mutants"] if m.get("applicable", True) and not m["killed"]]
        absent = [m["name"] for m in entry["mutants"] if not m.get("applicable", True)]
        print(f"run_mutants: {entry['device']}: {s.get('killed')} killed / {s.get('acted')} acted / "
              f"{s.get('total')} mutants ({(s.get('ratio') or 0):.1%}; {s.get('loose_killed')} by the loose count), "
              f"{len(absent)} not applicable (every test skips as absent: {', '.join(absent) or 'none'}), "
              f"control {'equal to' if entry.get('control', {}).get('equal') else 'DIFFERENT from'} the plain run, "
              f"{entry.get('seconds')} s; survivors: {', '.join(survivors) or 'none'}", file=sys.stderr)
        problems += problems_of(entry, args.gate)
    print(f"run_mutants: wrote {path} ({report['seconds']} s)", file=sys.stderr)
    for p in problems:
        print(f"run_mutants: FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
