# gdb script for step.sh: single-step one call of each function
# named in STEP_FUNCS inside pa_bench's pair loop and count the guest
# instructions it executes, by function.  Symbols come from the build's
# System.map, so no vmlinux with debug info is needed.
import bisect
import os
import time

import gdb

sysmap, outdir, port = os.environ["STEP_SYSMAP"], os.environ["STEP_OUT"], os.environ["STEP_PORT"]
skip = int(os.environ.get("STEP_SKIP", "300"))
funcs = os.environ.get("STEP_FUNCS", "alloc_pages __free_pages").split()
limit = 50000  # steps; a call that does not return by then is reported as such

addrs, names, by_name = [], [], {}
with open(sysmap) as f:
    for line in f:
        a, t, n = line.split()[:3]
        if t in "tTwW":
            addrs.append(int(a, 16))
            names.append(n)
            by_name[n] = int(a, 16)
order = sorted(range(len(addrs)), key=addrs.__getitem__)
addrs = [addrs[i] for i in order]
names = [names[i] for i in order]


def sym(pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return names[i] if i >= 0 else hex(pc)


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & (2**64 - 1)


gdb.execute("set pagination off")
gdb.execute("set confirm off")
for attempt in range(50):
    try:
        gdb.execute("target remote 127.0.0.1:" + port, to_string=True)
        break
    except gdb.error:
        time.sleep(0.2)
else:
    raise SystemExit("step: no gdb stub on port " + port)


def run_to(name, ignore):
    # 6.10 gave the allocation entry points a _noprof name for memory
    # allocation profiling (alloc_pages() calls alloc_pages_noprof()).
    entry = name
    if entry not in by_name and entry + "_noprof" in by_name:
        entry += "_noprof"
    if entry not in by_name:
        raise SystemExit("step: %s is not in System.map" % name)
    bp = gdb.Breakpoint("*%#x" % by_name[entry], internal=True)
    # STEP_COND_<function>: a gdb condition on the entry registers, such as
    # "$rsi < 128", to step only calls of one kind.
    cond = os.environ.get("STEP_COND_" + name)
    if cond:
        bp.condition = cond
    bp.ignore_count = ignore
    gdb.execute("continue", to_string=True)
    bp.delete()


# Past module loading, the next calls come from pa_bench: skip the
# warm-up so that the pcp lists are in their steady state.
def step_call():
    """Single-step the call just entered to its return."""
    sp0 = reg("rsp")
    args = " ".join("%s=%d" % (r, reg(r)) for r in ("rdi", "rsi", "rdx", "rcx", "r8", "r9"))
    counts, trace, n = {}, [], 0
    while n < limit:
        pc = reg("rip")
        s = sym(pc)
        counts[s] = counts.get(s, 0) + 1
        insn = gdb.execute("x/i $pc", to_string=True).split(":", 1)[-1].strip()
        trace.append("%s+%#x: %s" % (s, pc - by_name.get(s, pc), insn))
        gdb.execute("stepi", to_string=True)
        n += 1
        if reg("rsp") > sp0:  # the call returned
            break
    return counts, trace, n, args


run_to("do_init_module", 0)
for fn in funcs:
    # A call during which the CPU switched to another task (its
    # cond_resched() ran the vmstat worker, say) counts that task's
    # instructions too: step the next call instead.
    run_to(fn, skip)
    for switched in range(10):
        counts, trace, n, args = step_call()
        if "__schedule" not in counts:
            break
        run_to(fn, 0)
    with open(os.path.join(outdir, "steps-%s.txt" % fn), "w") as f:
        f.write("%s: %d instructions%s%s\n" % (fn, n, "" if n < limit else " (did not return)",
                                             " (%d earlier calls switched tasks)" % switched if switched else ""))
        for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            f.write("%7d  %s\n" % (v, k))
        f.write("\n")
        f.write("\n".join(trace) + "\n")
    # The call's arguments (System V registers, as integers): what it was
    # asked to do, such as how many pages a refill or a drain moves.
    with open(os.path.join(outdir, "steps-%s.args" % fn), "w") as f:
        f.write(args + "\n")
gdb.execute("kill")
