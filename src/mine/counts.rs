//! How many tests a verifier ran, passed and failed, read from its output: the summary lines
//! of pytest, unittest, cargo test, go test (`-v`), jest, vitest, `node --test` (TAP or the
//! spec reporter) and Maven's surefire, a JUnit XML report printed into the output, or else
//! plain TAP lines (`ok 1 - name`, `not ok 2 - name`) from any other test command.
//!
//! A verifier that exits 0 after running no test proves nothing; these counts are what tell
//! it from one whose tests ran.

use std::sync::LazyLock;

use regex::Regex;

/// The tests one verifier run reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TestCounts {
    /// Tests that ran (passed plus failed; skipped tests are not counted).
    pub run: u64,
    /// Tests that passed.
    pub passed: u64,
    /// Tests that failed or errored (a collection or import error counts as one).
    pub failed: u64,
    /// Whether the tests could not be built or loaded at all (a compile error, a Go build
    /// failure, a jest suite that failed to run): every selected test failed without a count.
    pub build_failed: bool,
}

impl TestCounts {
    fn add(&mut self, passed: u64, failed: u64) {
        self.passed += passed;
        self.failed += failed;
        self.run += passed + failed;
    }

    /// Whether at least one selected test failed (or none could be built).
    pub fn some_failed(&self) -> bool {
        self.failed > 0 || self.build_failed
    }

    /// Whether tests ran and every one passed.
    pub fn all_passed(&self) -> bool {
        self.run > 0 && self.failed == 0 && !self.build_failed
    }
}

impl std::fmt::Display for TestCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} run, {} passed, {} failed",
            self.run, self.passed, self.failed
        )?;
        if self.build_failed {
            write!(f, ", build failed")?;
        }
        Ok(())
    }
}

// Fixed patterns: compiling them cannot fail.
#[allow(clippy::unwrap_used)]
fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap()
}

/// pytest's last line: `== 1 failed, 2 passed, 1 skipped in 0.12s ==` (`-q`: no rule).
static PYTEST: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^=*\s*((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)(?:, )?)+|no tests ran)(?: in [\d.]+s)",
    )
});
static PYTEST_ITEM: LazyLock<Regex> = LazyLock::new(|| re(r"(\d+) (\w+)"));
/// unittest: `Ran 3 tests in 0.001s`, then `OK`, `OK (skipped=1)` or `FAILED (errors=1)`.
static UNITTEST_RAN: LazyLock<Regex> = LazyLock::new(|| re(r"^Ran (\d+) tests? in [\d.]+s$"));
static UNITTEST_END: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(OK|FAILED|NO TESTS RAN)(?: \((.*)\))?$"));
static KEY_NUMBER: LazyLock<Regex> = LazyLock::new(|| re(r"(\w+)=(\d+)"));
/// cargo test, one per test target: `test result: ok. 3 passed; 0 failed; 1 ignored; ...`.
static CARGO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^test result: \w+\. (\d+) passed; (\d+) failed;"));
/// go test -v: `--- PASS: TestX (0.00s)` (subtests are indented and not counted).
static GO_TEST: LazyLock<Regex> = LazyLock::new(|| re(r"^--- (PASS|FAIL): \S+"));
static GO_BUILD: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:FAIL\s+\S+\s+\[(?:build|setup) failed\]|# \S+\s*$)"));
/// jest: `Tests:       1 failed, 2 passed, 3 total`.
static JEST: LazyLock<Regex> = LazyLock::new(|| re(r"^Tests:\s+(.*\d+ total)$"));
static JEST_SUITE: LazyLock<Regex> = LazyLock::new(|| re(r"Test suite failed to run"));
/// vitest: ` Tests  1 failed | 2 passed (3)`.
static VITEST: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Tests\s+((?:\d+ \w+(?: \| )?)+)\s*\(\d+\)"));
/// node --test: `# pass 2` (TAP) or `ℹ pass 2` (spec reporter).
static NODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:#|ℹ) (tests|pass|fail|cancelled|skipped|todo) (\d+)$"));
/// Maven surefire: `Tests run: 3, Failures: 1, Errors: 0, Skipped: 0` (the last one totals).
static SUREFIRE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:\[\w+\]\s+)?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)$")
});
/// A JUnit XML `<testsuite>` (or `<testsuites>`) opening tag.
static JUNIT: LazyLock<Regex> = LazyLock::new(|| re(r"<testsuites?\b[^>]*>"));
static XML_ATTR: LazyLock<Regex> = LazyLock::new(|| re(r#"\b(\w+)="(\d+)""#));
/// A TAP test line: `ok 1 - name` or `not ok 2 - name`, with an optional `# SKIP` directive.
static TAP: LazyLock<Regex> = LazyLock::new(|| re(r"^(not )?ok\b(?:\s+\d+)?(.*)$"));

/// The counts a verifier's output reports, summed over every runner it shows; `None` when
/// the output holds no summary any runner prints.
pub fn read(output: &str) -> Option<TestCounts> {
    let mut counts = TestCounts::default();
    let mut found = false;
    let mut node = NodeTap::default();
    let mut surefire: Option<(u64, u64)> = None;
    let mut unittest_ran: Option<u64> = None;
    let mut tap = (0, 0);
    for raw in output.lines() {
        let line = raw.trim_end();
        let trimmed = line.trim();
        if let Some(c) = PYTEST.captures(trimmed) {
            let (mut passed, mut failed) = (0, 0);
            for item in PYTEST_ITEM.captures_iter(&c[1]) {
                let n: u64 = item[1].parse().unwrap_or(0);
                match &item[2] {
                    "passed" | "xfailed" | "xpassed" => passed += n,
                    "failed" | "error" | "errors" => failed += n,
                    _ => {}
                }
            }
            counts.add(passed, failed);
            found = true;
            continue;
        }
        if let Some(c) = UNITTEST_RAN.captures(trimmed) {
            unittest_ran = c[1].parse().ok();
            continue;
        }
        if let (Some(ran), Some(c)) = (unittest_ran, UNITTEST_END.captures(trimmed)) {
            let (mut failed, mut skipped) = (0, 0);
            for kv in KEY_NUMBER.captures_iter(c.get(2).map_or("", |m| m.as_str())) {
                let n: u64 = kv[2].parse().unwrap_or(0);
                match &kv[1] {
                    "failures" | "errors" | "unexpected_successes" => failed += n,
                    "skipped" => skipped += n,
                    _ => {}
                }
            }
            let failed = failed.min(ran);
            counts.add(ran.saturating_sub(failed + skipped), failed);
            unittest_ran = None;
            found = true;
            continue;
        }
        if let Some(c) = CARGO.captures(trimmed) {
            counts.add(c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0));
            found = true;
            continue;
        }
        if trimmed.starts_with(super::write::NOT_BUILT)
            || trimmed.starts_with("error: could not compile")
            || trimmed.starts_with("error[E")
            || trimmed.starts_with("error: failed to run custom build command")
        {
            counts.build_failed = true;
            found = true;
            continue;
        }
        if let Some(c) = GO_TEST.captures(line) {
            match &c[1] {
                "PASS" => counts.add(1, 0),
                _ => counts.add(0, 1),
            }
            found = true;
            continue;
        }
        if GO_BUILD.is_match(trimmed) && trimmed.starts_with("FAIL") {
            counts.build_failed = true;
            found = true;
            continue;
        }
        if let Some(c) = JEST.captures(trimmed) {
            let (passed, failed) = passed_failed(&c[1]);
            counts.add(passed, failed);
            found = true;
            continue;
        }
        if JEST_SUITE.is_match(trimmed) {
            counts.build_failed = true;
            found = true;
            continue;
        }
        if let Some(c) = VITEST.captures(trimmed) {
            let (passed, failed) = passed_failed(&c[1]);
            counts.add(passed, failed);
            found = true;
            continue;
        }
        if let Some(c) = NODE.captures(trimmed) {
            node.set(&c[1], c[2].parse().unwrap_or(0));
            continue;
        }
        if let Some(c) = SUREFIRE.captures(trimmed) {
            let n = |i: usize| c[i].parse::<u64>().unwrap_or(0);
            let failed = n(2) + n(3);
            // Surefire prints one line per class, then the total: the last one wins.
            surefire = Some((n(1).saturating_sub(failed + n(4)), failed));
            continue;
        }
        if let Some(c) = TAP.captures(line) {
            let directive = c[2].to_ascii_lowercase();
            if !directive.contains("# skip") && !directive.contains("# todo") {
                match c.get(1) {
                    Some(_) => tap.1 += 1,
                    None => tap.0 += 1,
                }
            }
        }
    }
    if let Some((passed, failed)) = node.finish() {
        counts.add(passed, failed);
        found = true;
    }
    if let Some((passed, failed)) = surefire {
        counts.add(passed, failed);
        found = true;
    }
    if !found && let Some((passed, failed)) = junit(output) {
        counts.add(passed, failed);
        found = true;
    }
    if !found && tap != (0, 0) {
        counts.add(tap.0, tap.1);
        found = true;
    }
    found.then_some(counts)
}

/// `1 failed, 2 passed, 3 total` or `1 failed | 2 passed`: (passed, failed).
fn passed_failed(summary: &str) -> (u64, u64) {
    let (mut passed, mut failed) = (0, 0);
    for item in PYTEST_ITEM.captures_iter(summary) {
        let n: u64 = item[1].parse().unwrap_or(0);
        match &item[2] {
            "passed" => passed += n,
            "failed" => failed += n,
            _ => {}
        }
    }
    (passed, failed)
}

/// The `node --test` summary, whose lines come one by one.
#[derive(Debug, Default)]
struct NodeTap {
    pass: Option<u64>,
    fail: Option<u64>,
    cancelled: u64,
}

impl NodeTap {
    fn set(&mut self, key: &str, n: u64) {
        match key {
            "pass" => self.pass = Some(n),
            "fail" => self.fail = Some(n),
            "cancelled" => self.cancelled = n,
            _ => {}
        }
    }

    fn finish(&self) -> Option<(u64, u64)> {
        Some((self.pass?, self.fail? + self.cancelled))
    }
}

/// The totals of the outermost JUnit XML element in `text`: `tests`, `failures`, `errors`,
/// `skipped` of `<testsuites>` when present, else summed over `<testsuite>` elements.
pub fn junit(text: &str) -> Option<(u64, u64)> {
    let mut suites: Option<(u64, u64)> = None;
    for tag in JUNIT.find_iter(text) {
        let tag = tag.as_str();
        let mut attrs = std::collections::HashMap::new();
        for kv in XML_ATTR.captures_iter(tag) {
            attrs.insert(kv[1].to_owned(), kv[2].parse::<u64>().unwrap_or(0));
        }
        let get = |k: &str| attrs.get(k).copied().unwrap_or(0);
        let Some(tests) = attrs.get("tests").copied() else {
            continue;
        };
        let failed = get("failures") + get("errors");
        let passed = tests.saturating_sub(failed + get("skipped") + get("disabled"));
        if tag.starts_with("<testsuites") {
            return Some((passed, failed));
        }
        let (p, f) = suites.unwrap_or_default();
        suites = Some((p + passed, f + failed));
    }
    suites
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(run: u64, passed: u64, failed: u64) -> TestCounts {
        TestCounts {
            run,
            passed,
            failed,
            build_failed: false,
        }
    }

    #[test]
    fn every_runner_summary_is_read() {
        let cases: &[(&str, TestCounts)] = &[
            (
                "..F\n=================== 1 failed, 2 passed, 1 skipped in 0.12s ===================\n",
                counts(3, 2, 1),
            ),
            ("3 passed, 1 warning in 0.01s\n", counts(3, 3, 0)),
            (
                "ERROR tests/test_a.py\n!!! Interrupted: 1 error during collection !!!\n1 error in 0.05s\n",
                counts(1, 0, 1),
            ),
            ("\nno tests ran in 0.01s\n", counts(0, 0, 0)),
            (
                "----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nOK\n",
                counts(0, 0, 0),
            ),
            ("Ran 0 tests in 0.000s\n\nNO TESTS RAN\n", counts(0, 0, 0)),
            (
                "Ran 4 tests in 0.010s\n\nFAILED (failures=1, errors=1, skipped=1)\n",
                counts(3, 1, 2),
            ),
            ("Ran 2 tests in 0.001s\n\nOK (skipped=1)\n", counts(1, 1, 0)),
            (
                "running 2 tests\ntest a ... ok\ntest b ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\
                 test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 2 filtered out; finished in 0.01s\n",
                counts(5, 4, 1),
            ),
            (
                "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n    --- PASS: TestB/sub (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/x\t0.01s\n",
                counts(2, 1, 1),
            ),
            (
                "Tests:       1 failed, 2 passed, 3 total\nTime: 1s\n",
                counts(3, 2, 1),
            ),
            (
                " Test Files  1 passed (1)\n      Tests  4 passed (4)\n",
                counts(4, 4, 0),
            ),
            (
                "TAP version 13\nok 1 - adds\n1..1\n# tests 1\n# suites 0\n# pass 1\n# fail 0\n# cancelled 0\n# skipped 0\n",
                counts(1, 1, 0),
            ),
            ("ℹ tests 2\nℹ pass 1\nℹ fail 1\n", counts(2, 1, 1)),
            (
                "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s\n[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 1\n",
                counts(4, 3, 1),
            ),
            (
                "<?xml version=\"1.0\"?><testsuites tests=\"3\" failures=\"1\" errors=\"0\"><testsuite name=\"a\" tests=\"3\" failures=\"1\" skipped=\"0\"></testsuite></testsuites>",
                counts(3, 2, 1),
            ),
            (
                "<testsuite name=\"a\" tests=\"2\" failures=\"0\" errors=\"1\"/>\n<testsuite name=\"b\" tests=\"1\" failures=\"0\"/>",
                counts(3, 2, 1),
            ),
            (
                "ok 1 tests/a.sh\nnot ok 2 tests/b.sh\nok 3 tests/c.sh # SKIP no network\n",
                counts(2, 1, 1),
            ),
        ];
        for (output, want) in cases {
            assert_eq!(read(output), Some(*want), "{output}");
        }
    }

    #[test]
    fn build_failures_fail_every_selected_test() {
        let cargo = read("error[E0425]: cannot find function `mul` in crate `tiny`\nerror: could not compile `tiny` (test \"mul\") due to 1 previous error\n").unwrap();
        assert!(cargo.build_failed && cargo.some_failed() && !cargo.all_passed());
        let go = read("# example.com/x [example.com/x.test]\n./x_test.go:5:2: undefined: Mul\nFAIL\texample.com/x [build failed]\nFAIL\n").unwrap();
        assert!(go.build_failed);
        let jest =
            read(" FAIL  src/a.test.js\n  ● Test suite failed to run\n\nTests:       0 total\n")
                .unwrap();
        assert!(jest.build_failed && jest.run == 0);
    }

    #[test]
    fn outputs_without_a_summary_have_no_counts() {
        for output in [
            "",
            "make: *** [test] Error 1\n",
            "all good\nOK\n",
            "Traceback (most recent call last):\nModuleNotFoundError: No module named 'x'\n",
        ] {
            assert_eq!(read(output), None, "{output}");
        }
        assert!(!counts(0, 0, 0).all_passed(), "no test ran: nothing passed");
        assert!(!counts(0, 0, 0).some_failed());
    }
}
