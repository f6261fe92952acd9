"""Swaps a workspace's rule files as fast as asked, for the ignore-oracle attack tests.

Each swap puts a new entry at <root>/.gitignore with one rename: in turn a regular file of
harmless rules, a FIFO, a link to a file outside the root whose rules would hide events, and a
huge file whose hiding rule lies past the 64 KiB that rule files are read to. Every swap also
moves <root>/.git/info (the folder holding `exclude`) between a real folder of harmless rules
and a link to an outside folder whose `exclude` would hide events.

Usage: python3 ignore-swapper.py <root> <stage> <outside-rules> <outside-info> <huge> <seconds> <swaps-per-second>
Prints the number of swaps made.
"""
import os
import sys
import time

root, stage, outside_rules, outside_info, huge, seconds, rate = sys.argv[1:8]
seconds = float(seconds)
rate = float(rate)
rules = os.path.join(root, '.gitignore')
info = os.path.join(root, '.git', 'info')
real_info = os.path.join(stage, 'info-real')
link_info = os.path.join(stage, 'info-link')
os.symlink(outside_info, link_info)
info_is_real = True
swaps = 0
start = time.monotonic()
end = start + seconds
while time.monotonic() < end:
    entry = os.path.join(stage, 'g%d' % swaps)
    kind = swaps % 4
    if kind == 0:
        with open(entry, 'w') as f:
            f.write('*.tmp\n')
    elif kind == 1:
        os.mkfifo(entry)
    elif kind == 2:
        os.symlink(outside_rules, entry)
    else:
        os.link(huge, entry)
    os.rename(entry, rules)
    if info_is_real:
        os.rename(info, real_info)
        os.rename(link_info, info)
    else:
        os.rename(info, link_info)
        os.rename(real_info, info)
    info_is_real = not info_is_real
    swaps += 1
    # Paced, not flat out: a few thousand swaps a second would only overflow the kernel's event queue.
    ahead = start + swaps / rate - time.monotonic()
    if ahead > 0:
        time.sleep(ahead)
# Left as a harmless regular file and a real folder.
with open(os.path.join(stage, 'last'), 'w') as f:
    f.write('*.tmp\n')
os.rename(os.path.join(stage, 'last'), rules)
if not info_is_real:
    os.rename(info, link_info)
    os.rename(real_info, info)
print(swaps)
