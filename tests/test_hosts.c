// SPDX-License-Identifier: MIT
/*
 * test_hosts: the --hosts grammar (harness/hosts/hosts.h) word by word:
 * "[user@]host[:port][/device]" with a name, an IPv4 address or an IPv6
 * literal in brackets as OpenSSH users write it; what ssh gets (dest: the
 * bare address) and what scp gets (scp: the brackets kept before :PATH);
 * and the malformed words refused, each with its reason.
 */
#include <stdio.h>
#include <string.h>

#include "harness/hosts/hosts.h"
#include "tap/tap.h"

static struct tap T;
static struct hosts_list L;
static char t_err[320];

/* hosts_parse of "server,WORD": 0 with L.h[1] WORD's host, or -1 with t_err. */
static int t_word(const char *word)
{
	char spec[256];

	snprintf(spec, sizeof(spec), "server,%s", word);
	t_err[0] = '\0';
	if (hosts_parse(spec, &L, t_err, sizeof(t_err))) {
		tap_diag(&T, "%s: %s", word, t_err);
		return -1;
	}
	return 0;
}

/* WORD parses into these fields */
static void t_good(const char *word, const char *user, const char *name, unsigned port,
		   const char *dev, const char *dest, const char *scp)
{
	const struct hosts_host *h = &L.h[1];
	int r = t_word(word);

	tap_ok(&T, !r && L.n == 2 && !strcmp(h->user, user) && !strcmp(h->name, name) &&
		   h->port == port && !strcmp(h->device, dev) && !strcmp(h->dest, dest) &&
		   !strcmp(h->scp, scp),
	       "%s: user '%s' name %s port %u device '%s', ssh %s, scp %s", word, user, name,
	       port, dev, dest, scp);
}

/* WORD is refused, the reason holding why */
static void t_bad(const char *word, const char *why)
{
	int r = t_word(word);

	tap_ok(&T, r == -1 && strstr(t_err, why), "%s refused: %s", word, why);
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 18);

	t_good("node2", "", "node2", 0, "", "node2", "node2");
	t_good("root@192.0.2.11:2222/mlx5_0", "root", "192.0.2.11", 2222, "mlx5_0",
	       "root@192.0.2.11", "root@192.0.2.11");
	t_good("[fd7a::2]", "", "fd7a::2", 0, "", "fd7a::2", "[fd7a::2]");
	t_good("root@[fd7a::2]", "root", "fd7a::2", 0, "", "root@fd7a::2", "root@[fd7a::2]");
	t_good("root@[fd7a::2]:2222", "root", "fd7a::2", 2222, "", "root@fd7a::2",
	       "root@[fd7a::2]");
	t_good("[2001:db8::10]/mlx5_1", "", "2001:db8::10", 0, "mlx5_1", "2001:db8::10",
	       "[2001:db8::10]");
	t_good("me@[::ffff:192.0.2.1]:22/rxe0", "me", "::ffff:192.0.2.1", 22, "rxe0",
	       "me@::ffff:192.0.2.1", "me@[::ffff:192.0.2.1]");

	/* a hostfile line: the IPv6 literal, then Open MPI's slot words */
	tap_ok(&T, !hosts_parse("# server first\n[fd7a::1] slots=4\nroot@[fd7a::2]:2222 max_slots=8\n",
				&L, t_err, sizeof(t_err)) && L.n == 2 &&
		   !strcmp(L.h[0].name, "fd7a::1") && L.h[1].port == 2222,
	       "a file of IPv6 literals with slots= words: 2 hosts");

	t_bad("fd7a::2", "in brackets");
	t_bad("root@fd7a::2:2222", "in brackets");
	t_bad("[fd7a::2", "bad IPv6 address");
	t_bad("[fd7a::zz]", "bad IPv6 address");
	t_bad("[192.0.2.1]", "bad IPv6 address");
	t_bad("[fe80::1%eth0]", "bad IPv6 address");
	t_bad("[fd7a::2]x", "bad IPv6 address");
	t_bad("[fd7a::2]:0", "port is not 1..65535");
	t_bad("[fd7a::2]/rxe0:1", "bad device name");
	t_bad("[]", "bad IPv6 address");

	tap_totals(&T);
	return tap_exit_code(&T);
}
