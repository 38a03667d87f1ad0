// SPDX-License-Identifier: GPL-2.0
/*
 * paprof: an exact count of the guest kernel's instructions per function,
 * over windows that a guest program opens and closes, for QEMU 7.2's TCG
 * plugin interface.
 *
 * Every instruction QEMU translates gets an inline counter add: the
 * counter of the kernel function its address falls in (text symbols of
 * the System.map given as map=), one for all other kernel addresses
 * (modules, init text, BPF), or one for user space.  A guest program opens
 * a window by executing "xchg %bx,%bx" and closes it with "xchg %cx,%cx",
 * both with the operand-size prefix, which no compiler emits; at each close
 * the counts of the window are appended to out=:
 *	window N
 *	COUNT NAME	(one line per counter that moved)
 *	end N
 * On one vCPU under -icount the counts repeat exactly from run to run.
 * An instruction that faults and is restarted is counted each time.
 *
 * usage: qemu-system-x86_64 ... -plugin paprof.so,map=System.map,out=FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugin-api.h"

PAPROF_EXPORT int qemu_plugin_version = 1;

struct sym {
	uint64_t addr;
	char *name;
};

static struct sym *syms;
static size_t nsyms;
static uint64_t text_end;
/* One counter per symbol, then one for other kernel text, one for user. */
static uint64_t *counts;
static FILE *out;
static unsigned int window;
static int window_open;

#define KERNEL_SPACE	0xffff800000000000ULL
#define SLOT_KERNEL	(nsyms)
#define SLOT_USER	(nsyms + 1)

static const unsigned char open_insn[] = { 0x66, 0x87, 0xdb };	/* xchg %bx,%bx */
static const unsigned char close_insn[] = { 0x66, 0x87, 0xc9 };	/* xchg %cx,%cx */

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int load_map(const char *path)
{
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_etext"))
			text_end = addr;
		if (type != 't' && type != 'T')
			continue;
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 65536;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				return -1;
		}
		syms[nsyms].addr = addr;
		syms[nsyms].name = strdup(name);
		nsyms++;
	}
	fclose(f);
	if (!nsyms || !text_end)
		return -1;
	qsort(syms, nsyms, sizeof(*syms), by_addr);
	counts = calloc(nsyms + 2, sizeof(*counts));
	return counts ? 0 : -1;
}

/* The counter of an instruction address. */
static size_t slot_of(uint64_t vaddr)
{
	size_t lo = 0, hi = nsyms;

	if (vaddr < KERNEL_SPACE)
		return SLOT_USER;
	if (vaddr < syms[0].addr || vaddr >= text_end)
		return SLOT_KERNEL;
	while (hi - lo > 1) {	/* the last symbol at or below vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static const char *slot_name(size_t i)
{
	if (i == SLOT_KERNEL)
		return "[other-kernel]";
	if (i == SLOT_USER)
		return "[user]";
	return syms[i].name;
}

static void dump_window(const char *how)
{
	size_t i;

	fprintf(out, "window %u%s\n", window, how);
	for (i = 0; i < nsyms + 2; i++)
		if (counts[i])
			fprintf(out, "%llu %s\n", (unsigned long long)counts[i], slot_name(i));
	fprintf(out, "end %u\n", window);
	fflush(out);
	window++;
	window_open = 0;
}

static void on_marker(unsigned int vcpu, void *opening)
{
	if (opening) {
		memset(counts, 0, (nsyms + 2) * sizeof(*counts));
		window_open = 1;
	} else if (window_open) {
		dump_window("");
	}
}

static int is_insn(const struct qemu_plugin_insn *insn, const unsigned char *bytes)
{
	return qemu_plugin_insn_size(insn) == 3 &&
	       !memcmp(qemu_plugin_insn_data(insn), bytes, 3);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);

		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &counts[slot_of(vaddr)], 1);
		if (vaddr >= KERNEL_SPACE)
			continue;
		if (is_insn(insn, open_insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS, (void *)1);
		else if (is_insn(insn, close_insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	if (window_open)
		dump_window(" unclosed");
	fclose(out);
}

PAPROF_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
				      int argc, char **argv)
{
	const char *map = NULL, *path = NULL;
	char msg[600];
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "map=", 4))
			map = argv[i] + 4;
		else if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	}
	if (!map || !path) {
		qemu_plugin_outs("paprof: usage: -plugin paprof.so,map=System.map,out=FILE\n");
		return -1;
	}
	if (load_map(map)) {
		snprintf(msg, sizeof(msg), "paprof: %s: no text symbols or no _etext\n", map);
		qemu_plugin_outs(msg);
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		snprintf(msg, sizeof(msg), "paprof: cannot write %s\n", path);
		qemu_plugin_outs(msg);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
