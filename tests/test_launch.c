// SPDX-License-Identifier: MIT
/*
 * Unit tests of the launchers' words (harness/hosts/launch.h), --server-host
 * and --hosts slurm's node devices (harness/hosts/hosts.h), and of a lost host
 * in a --hosts point's TAP and JSON (harness/point/rsample.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/hosts/launch.h"
#include "harness/point/rsample.h"
#include "tap/tap.h"

static struct tap t;

/* the words joined by spaces */
static const char *t_join(char *const *v, int n)
{
	static char s[1024];
	size_t l = 0;

	s[0] = '\0';
	for (int i = 0; i < n && l < sizeof(s); i++)
		l += (size_t)snprintf(s + l, sizeof(s) - l, "%s%s", i ? " " : "", v[i]);
	return s;
}

static void t_words(void)
{
	struct hosts_host h = { .name = "n1", .port = 2222, .dest = "root@n1", .scp = "root@n1" };
	char *local[] = { "/tmp/a", "/tmp/b", NULL }, dst[128];
	struct launch_argv a;
	int n;

	unsetenv("RDMACAP_SSH_CONFIG");
	n = lssh_argv(&h, "/tmp/rdmacap-ssh.x", false, &a);
	tap_ok(&t, !strcmp(t_join(a.v, n), "ssh -o BatchMode=yes -o ConnectTimeout=15 -o "
		   "ServerAliveInterval=2 -o ServerAliveCountMax=3 -o "
		   "ControlPath=/tmp/rdmacap-ssh.x/%C -o ControlMaster=no -p 2222 -T root@n1 --"),
	       "ssh: options, shared connection, port, destination: %s", t_join(a.v, n));
	n = lssh_master(&h, "/tmp/c", 30, &a);
	tap_ok(&t, a.v[n] == NULL && strstr(t_join(a.v, n), "ControlMaster=yes -p 2222 -o "
					   "ControlPersist=30 -f -N root@n1"),
	       "ssh: the shared connection's login");
	n = lssh_exit(&h, "/tmp/c", &a);
	tap_ok(&t, a.v[n] == NULL && strstr(t_join(a.v, n), "-p 2222 -O exit root@n1"),
	       "ssh: the shared connection closed");
	n = lssh_scp(&h, "/tmp/c", local, "/tmp/d/", dst, sizeof(dst), &a);
	tap_ok(&t, a.v[n] == NULL && !strncmp(a.v[0], "scp", 4) &&
		   strstr(t_join(a.v, n), "-P 2222 -pq /tmp/a /tmp/b root@n1:/tmp/d/"),
	       "scp: -P, the files, the destination");
	{
		struct hosts_host h6 = { .name = "fd7a::2", .dest = "root@fd7a::2",
					 .scp = "root@[fd7a::2]" };

		n = lssh_scp(&h6, "/tmp/c", local, "/tmp/d/", dst, sizeof(dst), &a);
		tap_ok(&t, a.v[n] == NULL && strstr(t_join(a.v, n), "-pq /tmp/a /tmp/b root@[fd7a::2]:/tmp/d/"),
		       "scp: an IPv6 destination in brackets: %s", t_join(a.v, n));
	}
	n = lsrun_argv(&h, &a);
	tap_ok(&t, !strcmp(t_join(a.v, n), "srun --nodes=1 --ntasks=1 --overlap --quiet "
		   "--job-name=rdmacap -w n1 -- sh -c"), "srun: one step of one task on the node");
	setenv("RDMACAP_SSH_CONFIG", "/tmp/cfg", 1);
	n = lmpi_argv(&h, "/tmp/c", &a);
	tap_ok(&t, n == 10 && !strcmp(a.v[3], "-o BatchMode=yes -o ConnectTimeout=15 -o "
		   "ServerAliveInterval=2 -o ServerAliveCountMax=3 -F /tmp/cfg -o "
		   "ControlPath=/tmp/c/%C -o ControlMaster=no -p 2222"),
	       "mpirun: one process on the node, its daemon's ssh with ssh's options, config, "
	       "shared connection and port in one plm_rsh_args: %s", a.v[3]);
	tap_ok(&t, !strcmp(a.v[1], "--mca") && !strcmp(a.v[2], "plm_rsh_args") &&
		   !strcmp(a.v[4], "-np") && !strcmp(a.v[7], "n1") && !strcmp(a.v[9], "-c"),
	       "mpirun: -np 1 --host NODE sh -c after it");
	n = lssh_argv(&h, NULL, false, &a);
	tap_ok(&t, strstr(t_join(a.v, n), "-F /tmp/cfg -p 2222") &&
		   !strstr(t_join(a.v, n), "Control"), "ssh: -F, no shared connection without one");
	unsetenv("RDMACAP_SSH_CONFIG");
}

static void t_hosts(void)
{
	struct hosts_list l;
	char out[256], err[256];

	tap_ok(&t, !hosts_parse("a,b/rxe1,c", &l, err, sizeof(err)) &&
		   !hosts_server_first(&l, "c", err, sizeof(err)) && !strcmp(l.h[0].name, "c") &&
		   !strcmp(l.h[1].name, "a") && !strcmp(l.h[2].name, "b") &&
		   !strcmp(l.h[2].device, "rxe1"), "--server-host: that host first, the others in order");
	tap_ok(&t, hosts_server_first(&l, "d", err, sizeof(err)) && strstr(err, "d: not one"),
	       "--server-host: a host not in the list refused: %s", err);
	tap_ok(&t, hosts_is_slurm("slurm") && hosts_is_slurm("slurm:n1/x") &&
		   !hosts_is_slurm("slurmy,b"), "--hosts slurm and slurm:... are the allocation's");
	tap_ok(&t, !hosts_slurm("slurm:n2/mlx5_1,n0/mlx5_0", "n0,n1,n2", out, sizeof(out), err,
				sizeof(err)) && !strcmp(out, "n0/mlx5_0,n1,n2/mlx5_1"),
	       "--hosts slurm:NODE/DEV: each node's device, the allocation's order: %s", out);
	tap_ok(&t, hosts_slurm("slurm:n5/x", "n0,n1", out, sizeof(out), err, sizeof(err)) &&
		   strstr(err, "not in the allocation"), "--hosts slurm: a node outside it refused");
	tap_ok(&t, hosts_slurm_check("slurm:n1", err, sizeof(err)) &&
		   hosts_slurm_check("slurm:root@n1/x", err, sizeof(err)) &&
		   !hosts_slurm_check("slurm", err, sizeof(err)),
	       "--hosts slurm: NODE/DEVICE words only");
}

static void t_lost(void)
{
	struct rsmp_hosts hs = { .n = 3 };
	struct tap cap;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	json_t *j;
	const char *cause;

	for (int k = 0; k < 3; k++) {
		snprintf(hs.h[k].dest, sizeof(hs.h[k].dest), "10.0.0.%d", k + 1);
		hs.h[k].server = !k;
		hs.h[k].agents = 1;
		hs.h[k].clients = k ? 10 : 0;
	}
	hs.h[2].connected = 10;
	snprintf(hs.h[1].lost, sizeof(hs.h[1].lost), "channel EOF: ssh ended (exit 255)");
	hs.h[1].lost_phase = "traffic";
	hs.h[1].lost_s = 6.25;
	hs.h[1].lost_clients = 10;
	tap_init(&cap, f);
	rsmp_tap(&cap, &hs);
	fclose(f);
	tap_ok(&t, s && strstr(s, "# host_lost host=10.0.0.2 role=client phase=traffic after_s=6.2 "
			     "clients=10 cause=channel EOF: ssh ended (exit 255)\n"),
	       "TAP: the lost host named, its phase, when, its clients and the cause");
	tap_ok(&t, s && strstr(s, "# host=10.0.0.3 role=client device=all agents=1 clients=10 "
			     "connected=10 failed=0"), "TAP: the other client host's figures kept");
	free(s);
	j = rsmp_json(&hs);
	cause = json_string_value(json_object_get(
		json_object_get(json_array_get(json_object_get(j, "hosts"), 1), "lost"), "cause"));
	tap_ok(&t, cause && !strcmp(cause, hs.h[1].lost) &&
		   !json_object_get(json_array_get(json_object_get(j, "hosts"), 2), "lost"),
	       "JSON: hosts[1].lost.cause, none on the host that stayed");
	json_decref(j);
}

int main(void)
{
	tap_init(&t, stdout);
	tap_plan(&t, 18);
	t_words();
	t_hosts();
	t_lost();
	tap_totals(&t);
	return tap_exit_code(&t);
}
