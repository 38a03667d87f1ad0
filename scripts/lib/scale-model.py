#!/usr/bin/env python3
"""What make check would take with N machines of this one's size.

usage: scale-model.py TABLE [--cold S] [--matrix S] [--hosts 1,2,4,8,16]

TABLE is the table a make check printed ($WORK/check-table.txt): per
commit the build's seconds and each boot's seconds.  The model replays
that run's jobs on N machines:

- The base's cold build: its compiles (all of it but the serial part)
  spread over the N machines' compilers (distcc), the serial part (link,
  modpost, make's own walk) stays here.  --cold gives that build's
  seconds when the table's base row was not cold; the serial part is
  the median of the later commits' builds, which compile little.
- Each later commit's build and its build matrix (--matrix seconds a
  commit) run here, one after the other, as check.sh runs them.
- Boots: the boots of one commit run side by side and take as long as
  the longest of them (the table's times were measured so, beside the
  next build).  With one machine, a commit's boots start once it is
  built and the commit before has booted.  With N > 1, this machine
  builds and N - 1 boot hosts (BOOT_HOSTS) take the commits' boots, one
  commit at a time each, the first host to come free first, as check.sh
  keeps as many commits booting as there are hosts.  run-qemu.sh puts a
  commit's boots on hosts of their own when they are free: the model
  errs long there.

Prints a Markdown table: N, the modelled wall time, and the bound no N
beats (the serial build chain plus the last commit's longest boot).
"""
import argparse
import heapq
import re
import statistics
import sys


def read_table(path):
    """(build seconds, [boot seconds]) per row of a check table."""
    rows = []
    with open(path, encoding="utf-8") as f:
        header = re.split(r"\s{2,}", f.readline().strip())
        build_col, boot_col = header.index("build s"), header.index("boot s")
        for line in f:
            cols = re.split(r"\s{2,}", line.rstrip("\n"))
            if len(cols) <= boot_col or "-" in (cols[build_col], cols[boot_col]):
                sys.exit(f"scale-model: {path}: a row without build or boot times: {line.strip()}")
            boots = [float(s) for s in cols[boot_col].split("/")]
            rows.append((float(cols[build_col]), boots))
    if len(rows) < 2:
        sys.exit(f"scale-model: {path}: needs the base and at least one commit")
    return rows


def built_at(rows, n, cold, matrix):
    """When each commit's build and matrix are done, on n machines."""
    serial = statistics.median(b for b, _ in rows[1:])
    t = serial + max(cold - serial, 0) / n + matrix
    done = [t]
    for build, _ in rows[1:]:
        t += build + matrix
        done.append(t)
    return done


def one_machine(rows, done):
    """Boots of one commit side by side, one commit after another."""
    end = 0.0
    for (_, boots), ready in zip(rows, done):
        end = max(end, ready) + max(boots)
    return end


def boot_hosts(rows, done, hosts):
    """Each commit's boots on the first host to come free, in order."""
    free = [0.0] * hosts
    end = 0.0
    for (_, boots), ready in zip(rows, done):
        start = max(heapq.heappop(free), ready)
        heapq.heappush(free, start + max(boots))
        end = max(end, start + max(boots))
    return end


def minutes(secs):
    return f"{int(secs // 60)} min {int(secs % 60)} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("table")
    ap.add_argument("--cold", type=float, help="the base's cold build, seconds")
    ap.add_argument("--matrix", type=float, default=90.0, help="build matrix, seconds a commit")
    ap.add_argument("--hosts", default="1,2,4,8,16")
    a = ap.parse_args()
    rows = read_table(a.table)
    cold = a.cold if a.cold is not None else rows[0][0]
    print(f"{len(rows)} commits; cold base build {cold:.0f} s; matrix {a.matrix:.0f} s a commit\n")
    print("| machines | make check | no N does better than |")
    print("|---|---|---|")
    for n in (int(x) for x in a.hosts.split(",")):
        done = built_at(rows, n, cold, a.matrix)
        wall = one_machine(rows, done) if n == 1 else boot_hosts(rows, done, n - 1)
        bound = built_at(rows, float("inf"), cold, a.matrix)[-1] + max(rows[-1][1])
        print(f"| {n} | {minutes(wall)} | {minutes(bound)} |")


if __name__ == "__main__":
    main()
