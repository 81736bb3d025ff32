/*
 * unit_server.h: build/llmserver for a unit test: started with the arguments the test
 * gives, on a port it chooses itself (written to a file in the test's folder, read back
 * into the URL), and stopped. Include after unit.h and util.h.
 *
 * Ownership: the running server's pid is this header's; the URL is written into the
 * caller's buffer.
 */
#ifndef SUQL_UNIT_SERVER_H
#define SUQL_UNIT_SERVER_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t unit_server;

static void unit_server_stop(void)
{
	if (unit_server > 0) {
		kill(unit_server, SIGTERM);
		waitpid(unit_server, NULL, 0);
		unit_server = 0;
	}
}

/* Stops the server running, then starts bin with --port-file, the npre arguments pre,
   first (unless NULL) and the rest of ap up to its NULL; url gets
   http://127.0.0.1:PORT/v1. 1 when it listens, 0 (said) when it did not start. */
static int unit_server_startv(const char *bin, const char *dir, char *url, size_t urln,
                              const char *const *pre, int npre, const char *first,
                              va_list ap)
{
	static int nstarted;
	char portf[300];
	const char *argv[40];
	int n = 0;
	unit_server_stop();
	snprintf(portf, sizeof portf, "%s/port%d", dir, ++nstarted);
	argv[n++] = bin;
	argv[n++] = "--port-file";
	argv[n++] = portf;
	for (int i = 0; i < npre && n < 38; i++)
		argv[n++] = pre[i];
	for (const char *a = first; a && n < 39; a = va_arg(ap, const char *))
		argv[n++] = a;
	argv[n] = NULL;
	unit_server = fork();
	if (unit_server == 0) {
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		char *p = util_read_file(portf, NULL);
		if (p) {
			snprintf(url, urln, "http://127.0.0.1:%d/v1", atoi(p));
			free(p);
			return 1;
		}
		usleep(20000);
	}
	printf("# llmserver did not start\n");
	return 0;
}

#endif
