#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright 2026 The onenode authors
"""Checks that the VK_ONENODE_nic_memory spec matches the implementation.

- vk_onenode_nic_memory.xml against include/vulkan/vk_onenode_nic_memory.h:
  a C++ file of static_asserts (every enumerant's value, every structure's
  members, types, offsets and size, every command's signature) is generated
  and compiled with the project's compiler;
- the commands in the XML against the layer manifest's entrypoints;
- every type, command and enumerant of the XML is named in the asciidoc text.

usage: check_spec.py SPECDIR MANIFEST INCLUDEDIR CXX...
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def member_decl(m, name_override=None):
    """C declaration of a <member>/<param> element."""
    text = ''.join(m.itertext()).strip()
    name = m.find('name').text
    if name_override:
        text = text.replace(name, name_override, 1)
    return ' '.join(text.split())


def member_type(m):
    """The declared type of a member, as a C++ type-id."""
    text = ''.join(m.itertext())
    name = m.find('name').text
    before, _, after = text.partition(name)
    return ' '.join((before + after).split())


def main():
    specdir, manifest, incdir, *cxx = sys.argv[1:]
    root = ET.parse(os.path.join(specdir, 'vk_onenode_nic_memory.xml')).getroot()
    adoc = open(os.path.join(specdir, 'VK_ONENODE_nic_memory.adoc')).read()
    errors = []
    out = ['#include <cstddef>', '#include <string_view>', '#include <type_traits>',
           '#include "vulkan/vk_onenode_nic_memory.h"', '']

    ext = root.find('extensions/extension')
    number = int(ext.get('number'))
    names = []
    for enums in root.findall('enums'):
        for e in enums.findall('enum'):
            out.append(f'static_assert({e.get("name")} == {e.get("value")}, "{e.get("name")}");')
            names.append(e.get('name'))
    for e in ext.findall('require/enum'):
        n = e.get('name')
        if e.get('offset') is not None:
            v = 1000000000 + (number - 1) * 1000 + int(e.get('offset'))
            if e.get('dir') == '-':
                v = -v
            out.append(f'static_assert(static_cast<long long>({n}) == {v}LL, "{n}");')
        elif e.get('value', '').startswith('"'):
            out.append(f'static_assert(std::string_view({n}) == {e.get("value")}, "{n}");')
        elif e.get('value') is not None:
            out.append(f'static_assert({n} == {e.get("value")}, "{n}");')
        names.append(n)

    for t in root.findall('types/type'):
        n = t.get('name')
        names.append(n)
        if t.get('category') != 'struct':
            out.append(f'static_assert(std::is_enum_v<{n}>, "{n}");')
            continue
        members = t.findall('member')
        mirror = [f'struct Mirror_{n} {{']
        for m in members:
            mirror.append('    ' + member_decl(m) + ';')
        mirror.append('};')
        out.extend(mirror)
        out.append(f'static_assert(sizeof(Mirror_{n}) == sizeof({n}), "size of {n}");')
        for m in members:
            mn = m.find('name').text
            out.append(f'static_assert(offsetof(Mirror_{n}, {mn}) == offsetof({n}, {mn}), "{n}::{mn}");')
            out.append(f'static_assert(std::is_same_v<decltype(Mirror_{n}::{mn}), decltype({n}::{mn})>, '
                       f'"type of {n}::{mn}");')
            sval = m.get('values')
            if sval:
                names.append(sval)

    commands = []
    for c in root.findall('commands/command'):
        proto = c.find('proto')
        n = proto.find('name').text
        commands.append(n)
        names.append(n)
        ret = member_type(proto)
        params = ', '.join(member_type(p) for p in c.findall('param'))
        out.append(f'static_assert(std::is_same_v<PFN_{n}, {ret} (VKAPI_PTR *)({params})>, "{n}");')
        for code in (c.get('errorcodes') or '').split(','):
            if code and code not in adoc:
                errors.append(f'{n}: error code {code} is not in the asciidoc text')

    required = {e.get('name') for e in ext.findall('require/command')}
    if required != set(commands):
        errors.append(f'extension <require> commands {sorted(required)} != <commands> {sorted(commands)}')
    with open(manifest) as f:
        layer = json.load(f)['layer']
    entry = set()
    for de in layer.get('device_extensions', []):
        if de['name'] == ext.get('name'):
            entry = set(de.get('entrypoints', []))
            if de.get('spec_version') != ext.find("require/enum[@name='VK_ONENODE_NIC_MEMORY_SPEC_VERSION']").get('value'):
                errors.append('manifest spec_version differs from the XML')
    if entry != set(commands):
        errors.append(f'manifest entrypoints {sorted(entry)} != XML commands {sorted(commands)}')
    for n in sorted(set(names)):
        if n not in adoc:
            errors.append(f'{n} is not described in VK_ONENODE_nic_memory.adoc')

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'spec_check.cpp')
        with open(src, 'w') as f:
            f.write('\n'.join(out) + '\n')
        r = subprocess.run(cxx + ['-std=c++20', '-fsyntax-only', '-I', incdir, src],
                           capture_output=True, text=True)
        if r.returncode != 0:
            errors.append('the header does not match the XML:\n' + r.stderr)
    checks = sum(1 for line in out if line.startswith('static_assert'))
    if errors:
        for e in errors:
            print('FAIL:', e)
        return 1
    print(f'spec matches: {checks} static checks, {len(commands)} commands, '
          f'{len(set(names))} names described')
    return 0


if __name__ == '__main__':
    sys.exit(main())
