#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright 2026 The onenode authors
"""Check, without a device, that an IGT binary lists its subtests and that
every subtest carries an igt_describe (its --describe output)."""

import re
import subprocess
import sys


def main():
    binary = sys.argv[1]
    listed = subprocess.run([binary, '--list-subtests'], stdout=subprocess.PIPE,
                            text=True, timeout=60)
    described = subprocess.run([binary, '--describe'], stdout=subprocess.PIPE,
                               text=True, timeout=60)
    errors = []
    if listed.returncode != 0 or described.returncode != 0:
        errors.append(f'exit {listed.returncode} / {described.returncode}')
    names = listed.stdout.split()
    if not names:
        errors.append('no subtests listed')
    blocks = re.findall(r'^SUB (\S+) \S+:\d+:\n((?:  .*\n|\n)*)',
                        described.stdout, re.M)
    if [b[0] for b in blocks] != names:
        errors.append(f'--describe lists {[b[0] for b in blocks]}, '
                      f'--list-subtests {names}')
    for name, text in blocks:
        if 'NO DOCUMENTATION!' in text or not text.strip():
            errors.append(f'{name}: no igt_describe')
    for e in errors:
        print(f'{binary}: {e}', file=sys.stderr)
    if not errors:
        print(f'{len(names)} subtests, all documented')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
