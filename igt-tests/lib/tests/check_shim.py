#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright 2026 The onenode authors
"""Drive shim_selftest and check the IGT-API shim's observable behaviour:
result lines, their order, exit codes and the command-line options."""

import re
import subprocess
import sys

RESULT = re.compile(r'^(Dynamic subtest|Subtest) ([A-Za-z0-9_-]+): '
                    r'(SUCCESS|FAIL|SKIP) \((\d+\.\d{3})s\)$')
STARTING = re.compile(r'^Starting (dynamic subtest|subtest): ([A-Za-z0-9_-]+)$')

failures = []


def run(binary, *args):
    p = subprocess.run([binary, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def results(stdout):
    """[(kind, name, result)] in output order; checks every Starting line
    is followed by the result of the same (dynamic) subtest."""
    out, started = [], []
    for line in stdout.splitlines():
        m = STARTING.match(line)
        if m:
            started.append(m.group(2))
            continue
        m = RESULT.match(line)
        if m:
            kind = 'dyn' if m.group(1).startswith('Dynamic') else 'sub'
            out.append((kind, m.group(2), m.group(3)))
            if started and started[-1] == m.group(2):
                started.pop()
    if started:
        check(False, f'started but never finished: {started}')
    return out


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f'CHECK FAILED: {what}', file=sys.stderr)


def expect(name, binary, args, code, want, stdout_has=(), stdout_lacks=(),
           stderr_has=()):
    rc, out, err = run(binary, *args)
    got = results(out)
    check(rc == code, f'{name}: exit {rc}, want {code}\n{out}\n{err}')
    if want is not None:
        check(got == want, f'{name}: results\n got {got}\nwant {want}')
    for s in stdout_has:
        check(s in out, f'{name}: stdout lacks {s!r}')
    for s in stdout_lacks:
        check(s not in out, f'{name}: stdout has {s!r}')
    for s in stderr_has:
        check(s in err, f'{name}: stderr lacks {s!r}\n{err}')
    return out


def main():
    b = sys.argv[1]
    S, D = 'sub', 'dyn'
    full = [
        (S, 'pass', 'SUCCESS'),
        (S, 'fail-assert', 'FAIL'),
        (S, 'fail-assert-eq', 'FAIL'),
        (S, 'fail-explicit', 'FAIL'),
        (S, 'skip-require', 'SKIP'),
        (S, 'skip-on', 'SKIP'),
        (S, 'ioctl-wrappers', 'SUCCESS'),
        (S, 'ioctl-wrappers-fail', 'FAIL'),
        (S, 'formatted-0', 'SUCCESS'),
        (S, 'formatted-1', 'SUCCESS'),
        (D, 'dyn-pass', 'SUCCESS'),
        (D, 'dyn-fail', 'FAIL'),
        (D, 'dyn-skip', 'SKIP'),
        (D, 'dyn-f0', 'SUCCESS'),
        (D, 'dyn-f1', 'SUCCESS'),
        (S, 'dynamic-mixed', 'FAIL'),
        (D, 'only', 'SUCCESS'),
        (S, 'dynamic-pass', 'SUCCESS'),
        (D, 'skipped', 'SKIP'),
        (S, 'dynamic-none', 'SKIP'),
        (S, 'fork-pass', 'SUCCESS'),
        (S, 'fork-fail', 'FAIL'),
        (S, 'group-skipped', 'SKIP'),
        (S, 'group-member', 'SUCCESS'),
        (S, 'after-groups', 'SUCCESS'),
    ]
    names = [n for k, n, _ in full if k == S]

    expect('full run', b, [], 98, full,
           stdout_has=['IGT-Version: ', 'fixture: top', 'fixture: bottom',
                       'info line',
                       'Test requirement: !(1)', 'expected skip',
                       'No dynamic tests executed.',
                       'child 1 failed with exit status 98'],
           stdout_lacks=['debug line'],
           stderr_has=['Test assertion failure function',
                       'Failed assertion: 0', 'expected failure 42',
                       'error: 1 != 2', 'Last errno: 25',
                       'child 1 fails'])

    out = expect('list', b, ['--list-subtests'], 0, [],
                 stdout_lacks=['fixture:', 'IGT-Version'])
    check(out.split() == names, f'list: got {out.split()}')

    expect('fixture skip', b, ['--fixture-skip'], 77,
           [(S, n, 'SKIP') for n in names], stdout_lacks=['fixture: bottom'])
    expect('fixture fail', b, ['--fixture-fail'], 98,
           [(S, n, 'FAIL') for n in names], stdout_lacks=['fixture: bottom'],
           stderr_has=['fixture asked to fail'])

    expect('single pass', b, ['--run-subtest', 'pass'], 0,
           [(S, 'pass', 'SUCCESS')], stdout_has=['Starting subtest: pass'])
    expect('single skip', b, ['--run-subtest', 'skip-require'], 77,
           [(S, 'skip-require', 'SKIP')])
    expect('single fail', b, ['--run-subtest', 'fail-assert'], 98,
           [(S, 'fail-assert', 'FAIL')])
    expect('glob', b, ['--run-subtest', 'formatted-*'], 0,
           [(S, 'formatted-0', 'SUCCESS'), (S, 'formatted-1', 'SUCCESS')])
    expect('glob exclusion', b, ['--run-subtest', 'formatted-*,!*-1'], 0,
           [(S, 'formatted-0', 'SUCCESS')])
    expect('unknown subtest', b, ['--run-subtest', 'no-such'], 79, [],
           stderr_has=['Unknown subtest: no-such'])
    expect('dynamic filter', b, ['--run-subtest', 'dynamic-mixed',
                                 '--dynamic-subtest', 'dyn-f[0-9]'], 0,
           [(D, 'dyn-f0', 'SUCCESS'), (D, 'dyn-f1', 'SUCCESS'),
            (S, 'dynamic-mixed', 'SUCCESS')],
           stdout_has=['Starting dynamic subtest: dyn-f0'])
    expect('dynamic filter none', b, ['--run-subtest', 'dynamic-pass',
                                      '--dynamic-subtest', 'nothing'], 77,
           [(S, 'dynamic-pass', 'SKIP')])
    expect('group fixtures are local', b,
           ['--group-fail', '--run-subtest', 'group-*,after-groups'], 98,
           [(S, 'group-skipped', 'SKIP'), (S, 'group-member', 'FAIL'),
            (S, 'after-groups', 'SUCCESS')],
           stderr_has=['group fixture fails'])
    expect('failed group fixture fails the run', b,
           ['--group-fail', '--run-subtest', 'pass'], 98,
           [(S, 'pass', 'SUCCESS')])

    out = expect('describe', b, ['--describe'], 0, [],
                 stdout_lacks=['fixture:'])
    lines = out.splitlines()
    check(lines and lines[0] == 'Self-test of the IGT-API shim.',
          f'describe: first line {lines[:1]}')
    sub = [l for l in lines if l.startswith('SUB ')]
    check([l.split()[1] for l in sub] == names, f'describe: SUB lines {sub}')
    check(re.search(r'^SUB pass \S*shim_selftest\.c:\d+:\n  always passes$',
                    out, re.M) is not None, 'describe: pass')
    check(re.search(r'^SUB fail-assert \S+:\d+:\n  NO DOCUMENTATION!$',
                    out, re.M) is not None, 'describe: undocumented')
    check(re.search(r'^SUB group-skipped \S+:\d+:\n  a group whose fixture skips$',
                    out, re.M) is not None, 'describe: group description')
    check(re.search(r'^SUB group-member \S+:\d+:\n  NO DOCUMENTATION!$',
                    out, re.M) is not None, 'describe: group scope ends')
    out = expect('describe one', b, ['--describe=pass'], 0, [])
    check(len([l for l in out.splitlines() if l.startswith('SUB ')]) == 1,
          'describe=pass: one SUB line')

    expect('help', b, ['--help'], 0, [], stdout_has=['--run-subtest'])
    expect('bad option', b, ['--no-such-option'], 79, [])

    if failures:
        print(f'{len(failures)} check(s) failed', file=sys.stderr)
        return 1
    print('all shim checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
