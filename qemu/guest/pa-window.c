// SPDX-License-Identifier: GPL-2.0
/*
 * pa-window CMD [ARG...]: run CMD inside one profile window.  The window
 * opens and closes with two marker instructions that the host's paprof
 * plugin watches for (qemu/profile/paprof.c); without the plugin they are
 * no-ops, so the command runs as it would on its own.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void window_open(void)
{
	asm volatile(".byte 0x66, 0x87, 0xdb");	/* xchg %bx,%bx */
}

static void window_close(void)
{
	asm volatile(".byte 0x66, 0x87, 0xc9");	/* xchg %cx,%cx */
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: pa-window CMD [ARG...]\n");
		return 2;
	}
	window_open();
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		window_close();
		perror("pa-window");
		return 1;
	}
	window_close();
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
