#!/usr/bin/env python3
"""Prints the total of one device counter over every test of a results.json.

    impair/counter_total.py duplicate_request out/.../rxe0/results.json   # -> 5

The run reads the device's counters around each test (results.json: tests[].traffic.counters,
the change during the test); the wire lab sums one of them to show that an impairment acted
(impair/README.md). A missing file or counter is 0.
"""
import json
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: counter_total.py COUNTER RESULTS_JSON", file=sys.stderr)
        return 2
    counter, path = sys.argv[1], sys.argv[2]
    try:
        with open(path) as f:
            tests = json.load(f).get("tests", [])
    except (OSError, ValueError):
        print(0)
        return 0
    total = 0
    for test in tests:
        counters = (test.get("traffic") or {}).get("counters") or {}
        value = counters.get(counter, 0)
        if isinstance(value, (int, float)):
            total += value
    print(int(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
