#!/usr/bin/env python3
"""What make check would take with N machines of this one's size.

usage: scale-model.py ROWS [--cold S] [--matrix S] [--hosts 1,2,4,8,16]

ROWS are the rows a make check left ($WORK/check-table.tsv: per commit,
tab-separated, the build's seconds in column 3 and each boot's seconds,
"/"-separated, in column 7).  The model replays that run's jobs as
check.sh orders them, on N machines:

- The base's cold build: its compiles (all of it but the serial part)
  spread over the N machines' compilers (distcc), the serial part (link,
  modpost, make's own walk) stays here.  --cold gives that build's
  seconds when the rows' base was not built cold; the serial part is
  the median of the later commits' builds, which compile little.
- Each later commit's build and its build matrix (--matrix seconds a
  commit) run here, one commit after the other; a commit's build starts
  once the commit before has started booting.
- A commit's boots run side by side and take as long as the longest of
  them (the rows' times were measured so, beside the next build).  With
  one machine, a commit starts booting once it is built and the commit
  before has booted.  With N > 1, this machine builds and N - 1 boot
  hosts take one commit's boots each at a time (BOOT_HOSTS="host/4 ...":
  four boots side by side, as here), the first to come free first.

Prints a Markdown table: N, the modelled wall time, and the bound no N
beats (this machine's serial chain plus the last commit's longest boot).
"""
import argparse
import heapq
import statistics
import sys


def read_rows(path):
    """(build seconds, [boot seconds]) per row."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cols = line.rstrip("\n").split("\t")
            try:
                rows.append((float(cols[2]), [float(s) for s in cols[6].split("/")]))
            except (IndexError, ValueError):
                sys.exit(f"scale-model: {path}:{n}: no build and boot times in: {line.strip()}")
    if len(rows) < 2:
        sys.exit(f"scale-model: {path}: needs the base and at least one commit")
    return rows


def replay(rows, n, cold, matrix):
    """Wall time of the run on n machines (n = inf: builds cost only their serial part)."""
    serial = statistics.median(b for b, _ in rows[1:])
    hosts = [0.0] * max(n - 1, 1) if n != float("inf") else [0.0] * len(rows)
    t = 0.0                        # when this machine may start the next build
    booted = 0.0                   # one machine: when the commit before has booted
    end = 0.0
    for i, (build, boots) in enumerate(rows):
        cost = serial + max(cold - serial, 0) / n if i == 0 else build
        built = t + cost + matrix
        if n == 1:
            start = max(built, booted)
            booted = start + max(boots)
        else:
            start = max(built, heapq.heappop(hosts))
            heapq.heappush(hosts, start + max(boots))
        end = max(end, start + max(boots))
        t = start
    return end


def minutes(secs):
    return f"{int(secs // 60)} min {int(secs % 60)} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows")
    ap.add_argument("--cold", type=float, help="the base's cold build, seconds")
    ap.add_argument("--matrix", type=float, default=39.0, help="build matrix, seconds a commit")
    ap.add_argument("--hosts", default="1,2,4,8,16")
    a = ap.parse_args()
    rows = read_rows(a.rows)
    cold = a.cold if a.cold is not None else rows[0][0]
    bound = replay(rows, float("inf"), cold, a.matrix)
    print(f"{len(rows)} commits; cold base build {cold:.0f} s; matrix {a.matrix:.0f} s a commit\n")
    print("| machines | make check | no N does better than |")
    print("|---|---|---|")
    for n in (int(x) for x in a.hosts.split(",")):
        print(f"| {n} | {minutes(replay(rows, n, cold, a.matrix))} | {minutes(bound)} |")


if __name__ == "__main__":
    main()
