// SPDX-License-Identifier: GPL-2.0
/*
 * pa-fault MB LOOPS: the page-fault workload, in the manner of
 * will-it-scale's page_fault1: map MB megabytes of private anonymous
 * memory, write one byte to every page (one fault and one order-0
 * allocation each), unmap (the pages go back through the free path), and
 * do that LOOPS times.  Prints the faults taken and the guest nanoseconds
 * per fault.  THP is asked off for the mapping, so every fault is a base
 * page, as with Debian's default of THP on madvise only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long fault_in(size_t len, long page)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;

	if (p == MAP_FAILED)
		return -1;
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += page)
		p[off] = 1;
	munmap(p, len);
	return len / page;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), loops, faults = 0, i, n;
	size_t len;
	double t0;

	if (argc != 3 || atol(argv[1]) <= 0 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: pa-fault MB LOOPS\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	loops = atol(argv[2]);
	t0 = now_ns();
	for (i = 0; i < loops; i++) {
		n = fault_in(len, page);
		if (n < 0) {
			perror("mmap");
			return 1;
		}
		faults += n;
	}
	printf("faults %ld ns_per_fault %.1f\n", faults, (now_ns() - t0) / faults);
	return 0;
}
