// SPDX-License-Identifier: GPL-2.0
/*
 * pa-exit VERDICT: hand the guest's verdict (0-255) to QEMU's
 * isa-debug-exit device at I/O port 0xf4, which ends QEMU with status
 * VERDICT * 2 + 1.  The port is opened with ioperm(), so the kernel needs
 * neither /dev/port nor the PCI support that /dev/port depends on.
 * Returns only if the device is missing; init then powers off.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

#define DEBUG_EXIT_PORT 0xf4

int main(int argc, char **argv)
{
	char *end;
	long verdict;

	if (argc != 2) {
		fprintf(stderr, "usage: pa-exit VERDICT\n");
		return 2;
	}
	verdict = strtol(argv[1], &end, 10);
	if (*argv[1] == '\0' || *end != '\0' || verdict < 0 || verdict > 255) {
		fprintf(stderr, "pa-exit: '%s' is not a verdict (0-255)\n", argv[1]);
		return 2;
	}
	if (ioperm(DEBUG_EXIT_PORT, 1, 1)) {
		perror("pa-exit: ioperm");
		return 1;
	}
	outb(verdict, DEBUG_EXIT_PORT);
	return 1;
}
