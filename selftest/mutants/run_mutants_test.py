#!/usr/bin/python3
"""The mutation driver's own rules (CTest `mutation.rules`, label unit): what counts as a
kill, the probe-visible variants, the per-device gate. No device needed.

  python3 selftest/mutants/run_mutants_test.py
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_mutants  # noqa: E402

PLAIN = {"A.passes": "pass", "B.fails": "fail", "C.xfails": "xfail", "D.skips": "skip",
         "BrokenCapability.send_with_inv": "xfail"}


def results(*tests):
    return {"tests": [dict({"status": "fail"}, **t) for t in tests]}


class KillRuleTest(unittest.TestCase):
    def test_a_test_that_passed_and_now_fails_kills(self):
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": "A.passes"})), ["A.passes"])

    def test_a_crash_a_hang_or_a_leak_does_not(self):
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": "A.passes", "abnormal": True})), [])
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": run_mutants.LEAK_CHECK})), [])

    def test_the_leak_check_kills_a_leak_mutant_only(self):
        plain = dict(PLAIN, **{run_mutants.LEAK_CHECK: "pass"})
        leak = results({"name": run_mutants.LEAK_CHECK, "abnormal": True})
        self.assertEqual(run_mutants.killers(plain, leak), [])
        self.assertEqual(run_mutants.killers(plain, leak, leak_kills=True), [run_mutants.LEAK_CHECK])

    def test_the_kernel_log_does_not(self):
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": "A.passes", "kernel_log": ["WARNING: x"]})), [])
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": "A.passes", "kernel_log": []})), ["A.passes"])

    def test_a_failure_without_the_mutant_does_not(self):
        for name in ("B.fails", "D.skips", "E.not_in_the_plain_run"):
            self.assertEqual(run_mutants.killers(PLAIN, results({"name": name})), [], name)

    def test_an_expected_failure_that_now_fails_otherwise_kills(self):
        # xfail in the plain run: only its own deviation; a fail now is another failure.
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": "C.xfails"})), ["C.xfails"])

    def test_a_capability_broken_only_under_the_mutant_kills(self):
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": "BrokenCapability.write_with_imm"})),
                         ["BrokenCapability.write_with_imm"])
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": "BrokenCapability.send_with_inv"})), [])

    def test_passes_and_skips_do_not(self):
        self.assertEqual(run_mutants.killers(PLAIN, results({"name": "A.passes", "status": "pass"},
                                                            {"name": "A.passes", "status": "skip"})), [])

    def test_a_mutant_that_never_acted_is_not_killed(self):
        failing = results({"name": "A.passes"})
        self.assertFalse(run_mutants.verdict({}, PLAIN, 1, failing, [])["killed"])
        self.assertTrue(run_mutants.verdict({}, PLAIN, 1, failing, [])["loose_killed"])
        self.assertTrue(run_mutants.verdict({}, PLAIN, 1, failing, ["tests"])["killed"])

    def test_only_a_crash_is_killed_by_the_loose_count_alone(self):
        v = run_mutants.verdict({}, PLAIN, 1, results({"name": "A.passes", "abnormal": True}), ["tests"])
        self.assertEqual((v["killed"], v["loose_killed"]), (False, True))

    def test_the_floor_left_out_on_purpose_kills_by_neither_count(self):
        plain = dict(PLAIN, **{run_mutants.FLOOR_OFF: "fail"})
        v = run_mutants.verdict({}, plain, 1, results({"name": run_mutants.FLOOR_OFF}), ["tests"])
        self.assertEqual((v["killed"], v["loose_killed"]), (False, False))
        v = run_mutants.verdict({}, plain, 1, results({"name": run_mutants.FLOOR_OFF}, {"name": "A.passes"}), ["tests"])
        self.assertEqual((v["killed"], v["loose_killed"]), (True, True))

    def test_every_run_is_a_slice_without_the_floor(self):
        calls = []

        class Done:
            returncode = 1

        def fake_run(cmd, **kwargs):
            calls.append(cmd)
            return Done()

        with tempfile.TemporaryDirectory() as d:
            args = run_mutants.parse_args(["--rdmacheck", "rdmacheck", "--library", "lib.so", "--table", "t",
                                           "--out", d])
            real, run_mutants.subprocess.run = run_mutants.subprocess.run, fake_run
            try:
                run_mutants.Device(args, "rxe0").run("m", "datapath", "*RcSendTest.*", "m")
            finally:
                run_mutants.subprocess.run = real
        self.assertIn("--floor=off", calls[0])

    def test_acted_roles_come_from_the_library_notes(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "acted")
            self.assertEqual(run_mutants.acted_roles(path), [])
            with open(path, "w") as f:
                f.write("x@probe probe 12\nx@probe tests 13\nx@probe tests 14\n")
            self.assertEqual(run_mutants.acted_roles(path), ["probe", "tests"])


class VariantTest(unittest.TestCase):
    def test_every_mutant_but_the_control_has_a_probe_variant(self):
        table = [{"name": "control", "what": "nothing"}, {"name": "wc_status", "what": "bad status"}]
        names = [m["name"] for m in run_mutants.with_variants(table)]
        self.assertEqual(names, ["control", "wc_status", "wc_status@probe"])
        variant = run_mutants.with_variants(table)[2]
        self.assertEqual((variant["base"], variant["variant"]), ("wc_status", "probe"))


class AnswersTest(unittest.TestCase):
    PROFILE = {"identity": {"time": "05:45"}, "declared": {"max_qp_wr": 16384}, "quirks": [],
               "observed": {"inline_data": {"outcome": "supported", "errno": 0, "detail": "the created QP reports 512"}},
               "measured": {"max_inline_data": {"value": 512, "detail": "the created QP reports 512"}}}

    def answers(self, profile):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(profile, f)
        try:
            return run_mutants.answers(f.name)
        finally:
            os.remove(f.name)

    def changed(self, key, cap, field, value):
        profile = json.loads(json.dumps(self.PROFILE))
        profile[key][cap][field] = value
        return profile

    def test_the_wording_of_a_detail_and_the_time_are_not_answers(self):
        reworded = self.changed("observed", "inline_data", "detail", "the created QP reports 256")
        reworded["identity"]["time"] = "05:48"
        self.assertEqual(self.answers(reworded), self.answers(self.PROFILE))

    def test_an_outcome_an_errno_a_measurement_or_a_declared_limit_is(self):
        for changed in (self.changed("observed", "inline_data", "outcome", "unsupported"),
                        self.changed("observed", "inline_data", "errno", 22),
                        self.changed("measured", "max_inline_data", "value", 256),
                        dict(self.PROFILE, declared={"max_qp_wr": 16385})):
            self.assertNotEqual(self.answers(changed), self.answers(self.PROFILE))


class GateTest(unittest.TestCase):
    def entry(self, device, killed, total, survives="why"):
        mutants = [{"name": f"m{i}", "killed": i < killed, "acted": True, "loose_killed": i < killed,
                    "survives": None if i < killed else survives} for i in range(total)]
        return {"device": device, "errors": [], "control": {"equal": True}, "mutants": mutants,
                "score": run_mutants.score(mutants)}

    def test_each_gated_device_has_its_own_minimum(self):
        gate = run_mutants.parse_args(["--rdmacheck=x", "--library=x", "--table=x", "--out=x"]).gate
        self.assertEqual(gate, {"rxe0": 0.92, "siw0": 0.90})
        self.assertEqual(run_mutants.problems_of(self.entry("siw0", 9, 10), gate), [])
        self.assertIn("below 92%", run_mutants.problems_of(self.entry("rxe0", 9, 10), gate)[0])
        self.assertEqual(run_mutants.problems_of(self.entry("mlx5_0", 1, 10), gate), [])

    def test_an_unexplained_survivor_fails_a_gated_device(self):
        problems = run_mutants.problems_of(self.entry("siw0", 19, 20, survives=None), {"siw0": 0.9})
        self.assertEqual(problems, ["siw0: survivors not explained in their source: m19"])

    def test_the_score_is_killed_over_all_mutants(self):
        self.assertEqual(run_mutants.score(self.entry("rxe0", 3, 4)["mutants"]),
                         {"killed": 3, "acted": 4, "total": 4, "not_applicable": 0, "loose_killed": 3, "ratio": 0.75})


class ApplicableTest(unittest.TestCase):
    PLAIN = {"AtomicWriteTest.Lands/RdmaCm": "skip", "AtomicsTest.FetchAdd/RdmaCm": "pass",
             "SuiteReported/atomic_write": "pass"}
    MUTANT = {"filter": "AtomicWriteTest.*:AtomicsTest.*"}

    def results(self, *names):
        return {"tests": [{"name": n, "status": "skip"} for n in names]}

    def test_a_mutant_whose_every_test_skips_as_absent_is_not_judged(self):
        results = self.results("AtomicWriteTest.Lands/RdmaCm", "BrokenCapability.atomic_write",
                               "LeakCheck.VerbsObjectsReleased", "SuiteReported/atomic_write")
        self.assertFalse(run_mutants.applicable(self.MUTANT, self.PLAIN, results, []))

    def test_the_floor_results_are_no_test_of_a_mutant_without_a_filter(self):
        plain = {"PdTest.A": "skip", run_mutants.FLOOR_OFF: "fail", "RunFloor.SuiteReported/pd": "fail"}
        results = self.results("PdTest.A", run_mutants.FLOOR_OFF, "RunFloor.SuiteReported/pd")
        self.assertFalse(run_mutants.applicable({"filter": ""}, plain, results, []))

    def test_a_test_that_ran_or_a_mutant_that_acted_makes_it_judged(self):
        self.assertTrue(run_mutants.applicable(self.MUTANT, self.PLAIN, self.results("AtomicsTest.FetchAdd/RdmaCm"), []))
        self.assertTrue(run_mutants.applicable(self.MUTANT, self.PLAIN, self.results("AtomicWriteTest.Lands/RdmaCm"), ["tests"]))

    def test_a_mutant_not_judged_counts_neither_way_nor_needs_an_explanation(self):
        mutants = [{"name": "a", "killed": True, "acted": True, "loose_killed": True, "survives": None},
                   {"name": "b", "killed": False, "acted": False, "loose_killed": False, "survives": None,
                    "applicable": False}]
        self.assertEqual(run_mutants.score(mutants)["total"], 1)
        self.assertEqual(run_mutants.score(mutants)["not_applicable"], 1)
        entry = {"device": "rxe0", "errors": [], "control": {"equal": True}, "mutants": mutants,
                 "score": run_mutants.score(mutants)}
        self.assertEqual(run_mutants.problems_of(entry, {"rxe0": 0.9}), [])


if __name__ == "__main__":
    unittest.main()
