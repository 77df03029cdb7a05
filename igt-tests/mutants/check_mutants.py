#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright 2026 The onenode authors
"""Run vcompute_caps under each caps_mutants.so mutant and require the
subtests meant to catch it to fail. Exit 0 when every mutant is caught,
1 when one survives, 77 when the vcompute node is absent.

The test's own output is echoed with a '| ' prefix so that result parsers
do not count the (expected) FAIL lines as failures of this run."""

import os
import re
import subprocess
import sys

# mutant: (arguments, results that must be FAIL)
MUTANTS = {
    'accept-input': (['--run-subtest', 'invalid-*'],
                     ['invalid-flags', 'invalid-fields', 'flags', 'version',
                      'features', 'vram-size', 'vram-bar-size', 'max-queues',
                      'num-priorities'] + [f'reserved-{i}' for i in range(6)]),
    'write-on-reject': (['--run-subtest', 'invalid-fields',
                         '--dynamic-subtest', 'reserved-*'],
                        ['invalid-fields'] + [f'reserved-{i}' for i in range(6)]),
    'overrun': (['--run-subtest', 'old-userspace'],
                ['old-userspace', 'size-0', 'size-4', 'size-48']),
    'unknown-feature': (['--run-subtest', 'basic'], ['basic']),
    'bar-exceeds-vram': (['--run-subtest', 'basic'], ['basic']),
    'dirty-reserved': (['--run-subtest', 'basic'], ['basic']),
    'flaky': (['--run-subtest', 'race-separate-fds'], ['race-separate-fds']),
}

RESULT = re.compile(r'^(?:Dynamic subtest|Subtest) (\S+): (SUCCESS|FAIL|SKIP)')


def main():
    test, lib = sys.argv[1], os.path.abspath(sys.argv[2])
    survivors = []
    for name, (args, must_fail) in MUTANTS.items():
        env = dict(os.environ, ONENODE_CAPS_MUTANT=name,
                   LD_PRELOAD=lib,
                   ASAN_OPTIONS=os.environ.get('ASAN_OPTIONS', '') +
                   ':verify_asan_link_order=0')
        p = subprocess.run([test, *args], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        for line in p.stdout.splitlines():
            print(f'| {line}')
        if p.returncode == 77:
            print('vcompute render node absent: skipping')
            return 77
        results = dict(m.groups() for m in map(RESULT.match, p.stdout.splitlines()) if m)
        missed = [r for r in must_fail if results.get(r) != 'FAIL']
        caught = p.returncode == 98 and not missed
        print(f'mutant {name}: {"caught" if caught else "SURVIVED"} '
              f'(exit {p.returncode}{", not failed: " + ", ".join(missed) if missed else ""})')
        if not caught:
            survivors.append(name)
    if survivors:
        print(f'surviving mutants: {", ".join(survivors)}')
        return 1
    print(f'all {len(MUTANTS)} mutants caught')
    return 0


if __name__ == '__main__':
    sys.exit(main())
