#!/usr/bin/env python3
"""Grows a fleet job's results into a larger synthetic fleet (the Slurm lab's third and fourth
nodes: two lab VMs are what this 2-core machine runs; docs/fleet.md, "The Slurm lab").

  scripts/fleet-grow.py OUT [--node NAME=NODE_DIR ...] [--pair SERVER--CLIENT=PAIR_DIR ...]

--node copies a node's directory of a fleet job (nodes/<node>: doctor.json and one run
directory per device) to OUT/nodes/NAME; --pair copies a pair's directory (pairs/<s>--<c>:
one `run --peer` directory per device, with bench.json) to OUT/pairs/SERVER--CLIENT. In every
results.json copied, the environment's hostname becomes the new node (the pair's client) and
a pair's peer its SERVER (the port kept). Nothing else changes: each copy is a real run, only
renamed. Exit 2 on bad arguments or a directory without results.
"""
import argparse
import json
import os
import shutil
import sys


def rename(run_dir, hostname, server=None):
    path = os.path.join(run_dir, "results.json")
    with open(path) as f:
        results = json.load(f)
    env = results.setdefault("environment", {})
    env["hostname"] = hostname
    if server is not None:
        port = str(env.get("peer", "")).rpartition(":")[2]
        env["peer"] = f"{server}:{port}" if port else server
    with open(path, "w") as f:
        json.dump(results, f, indent=2, ensure_ascii=False)


def copy(src, dst, hostname, server=None):
    runs = [d for d in sorted(os.listdir(src)) if os.path.isfile(os.path.join(src, d, "results.json"))]
    if not runs:
        sys.exit(f"fleet-grow: {src} holds no run directory (<device>/results.json)")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    for d in runs:
        rename(os.path.join(dst, d), hostname, server)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--node", action="append", default=[], help="NAME=NODE_DIR")
    p.add_argument("--pair", action="append", default=[], help="SERVER--CLIENT=PAIR_DIR")
    args = p.parse_args()
    for spec in args.node:
        name, _, src = spec.partition("=")
        if not name or not os.path.isdir(src):
            sys.exit(f"fleet-grow: --node {spec}: not NAME=NODE_DIR")
        copy(src, os.path.join(args.out, "nodes", name), name)
    for spec in args.pair:
        pair, _, src = spec.partition("=")
        server, _, client = pair.partition("--")
        if not server or not client or not os.path.isdir(src):
            sys.exit(f"fleet-grow: --pair {spec}: not SERVER--CLIENT=PAIR_DIR")
        copy(src, os.path.join(args.out, "pairs", pair), client, server)


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        sys.exit(f"fleet-grow: {e}")
