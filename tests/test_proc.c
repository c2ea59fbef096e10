// SPDX-License-Identifier: MIT
/*
 * test_proc: harness/point/proc.h's TCP socket count (proc_sockstat_at) on
 * sockstat files written here as the kernel writes them: IPv4 and IPv6
 * sockets summed (a tcp point over IPv6 has only TCP6 ones), a kernel
 * without sockstat6, and a sockstat without its TCP line. Then the same
 * reader on this process's own /proc/self/net.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/point/proc.h"
#include "tap/tap.h"

static struct tap T;
static char t_dir[] = "/tmp/test_proc.XXXXXX";

/* dir/name holds text; text NULL: no such file */
static void t_file(const char *name, const char *text)
{
	char path[sizeof(t_dir) + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t_dir, name);
	if (!text) {
		if (unlink(path) && errno != ENOENT)
			tap_bail(&T, "unlink %s: %s", path, strerror(errno));
		return;
	}
	f = fopen(path, "we");
	if (!f || fputs(text, f) < 0 || fclose(f))
		tap_bail(&T, "write %s: %s", path, strerror(errno));
}

static const char t_v4[] =
	"sockets: used 231\n"
	"TCP: inuse 7 orphan 0 tw 2 alloc 9 mem 40\n"
	"UDP: inuse 3 mem 2\n"
	"UDPLITE: inuse 0\n"
	"RAW: inuse 0\n"
	"FRAG: inuse 0 memory 0\n";

static const char t_v6[] =
	"TCP6: inuse 20\n"
	"UDP6: inuse 1\n"
	"UDPLITE6: inuse 0\n"
	"RAW6: inuse 0\n"
	"FRAG6: inuse 0 memory 0\n";

int main(void)
{
	long inuse = -1, mem = -1;
	int r;

	tap_init(&T, stdout);
	tap_plan(&T, 4);
	if (!mkdtemp(t_dir))
		tap_bail(&T, "mkdtemp: %s", strerror(errno));

	t_file("sockstat", t_v4);
	t_file("sockstat6", t_v6);
	r = proc_sockstat_at(t_dir, &inuse, &mem);
	tap_ok(&T, r == 0 && inuse == 27 && mem == 40,
	       "TCP inuse 7 and TCP6 inuse 20 are 27 sockets, mem 40 pages (got %d, %ld, %ld)", r,
	       inuse, mem);

	t_file("sockstat6", NULL);
	r = proc_sockstat_at(t_dir, &inuse, &mem);
	tap_ok(&T, r == 0 && inuse == 7, "without sockstat6 (no IPv6): TCP's 7 (got %d, %ld)", r,
	       inuse);

	t_file("sockstat", "sockets: used 1\n");
	inuse = -1;
	r = proc_sockstat_at(t_dir, &inuse, &mem);
	tap_ok(&T, r == -1 && inuse == -1, "a sockstat without its TCP line is -1, inuse untouched");

	r = proc_sockstat(getpid(), &inuse, &mem);
	tap_ok(&T, r == 0 && inuse >= 0 && mem >= 0, "this process's namespace: %ld sockets, %ld pages",
	       inuse, mem);

	t_file("sockstat", NULL);
	if (rmdir(t_dir))
		tap_diag(&T, "rmdir %s: %s", t_dir, strerror(errno));
	tap_totals(&T);
	return tap_exit_code(&T);
}
