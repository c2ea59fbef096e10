// SPDX-License-Identifier: MIT
/*
 * Unit tests of the cause a point names (harness/point/cause.c, cause_pick), from
 * the records an agent sends: a verbs call's ENOMEM says which process failed it
 * (the server's, told to its client, or the client agent's own) and which of its
 * two causes it was, from that side's largest process: at vm.max_map_count its
 * memory maps, below it the kernel's memory with the lowest MemAvailable; the
 * memory floor names memory first, then the call; an EINVAL names the device's
 * limit and the side. vm.max_map_count is this host's, read as the cause reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/point/rt.h"
#include "netns/netns.h"
#include "tap/tap.h"

static struct tap t;

struct t_point {
	struct hp_plan plan;
	struct nn_topo topo;
	struct pt_ctx c;
	struct pt_point pt;
	struct rt r;
};

/* A point with one failure (call, errno, at the server or not) and no other fact. */
static void t_setup(struct t_point *p, const char *call, int err, const char *errname,
		    bool at_server, long count)
{
	memset(p, 0, sizeof(*p));
	p->plan.transport = OPT_TR_RC;
	p->c.plan = &p->plan;
	p->c.topo = &p->topo;
	p->r.c = &p->c;
	p->r.pt = &p->pt;
	p->pt.clients = 30000;
	p->pt.connected = 29000;
	/* the OOM killer's count now: a kill long before this test is not the cause */
	if (proc_meminfo(&p->pt.mem_base))
		p->pt.mem_base.oom_kills = 0;
	for (long i = 0; i < count; i++)
		rec_fail(&p->r, i, call, err, errname, at_server);
}

static long t_max_map_count(void)
{
	char b[32] = "";
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");

	if (!f)
		return -1;
	if (!fgets(b, sizeof(b), f))
		b[0] = 0;
	fclose(f);
	return strtol(b, NULL, 10);
}

static bool t_has(const char *s, const char *want)
{
	if (strstr(s, want))
		return true;
	tap_diag(&t, "cause: %s", s);
	tap_diag(&t, "lacks: %s", want);
	return false;
}

static void t_enomem(long cap)
{
	static struct t_point p;
	char want[160];

	t_setup(&p, "ibv_create_qp", 12, "ENOMEM", true, 3);
	p.pt.srv_maps_max = 30144;
	p.pt.cli_maps_max = cap - 2;
	p.pt.mem_avail_min_kb = 71234;
	cause_pick(&p.r);
	tap_ok(&t, t_has(p.pt.cause, "ibv_create_qp ENOMEM at the server (3 times): kernel memory: "
		       "MemAvailable 71234 KiB at its lowest (the largest server process held "
		       "30144 memory maps") &&
			   /* the suites take "vm.max_map_count=N" for the maps' cause */
			   !strstr(p.pt.cause, "vm.max_map_count="),
	       "server's ENOMEM below vm.max_map_count: kernel memory, MemAvailable, at the server");

	t_setup(&p, "ibv_create_qp", 12, "ENOMEM", true, 1);
	p.pt.srv_maps_max = cap - 10;
	p.pt.mem_avail_min_kb = 900000;
	cause_pick(&p.r);
	snprintf(want, sizeof(want), "memory maps per process (vm.max_map_count=%ld; the largest server "
		 "process held %ld;", cap, cap - 10);
	tap_ok(&t, t_has(p.pt.cause, want), "server's ENOMEM at vm.max_map_count: its maps");

	t_setup(&p, "ibv_create_cq", 12, "ENOMEM", false, 2);
	p.pt.srv_maps_max = cap - 1;
	p.pt.cli_maps_max = 500;
	p.pt.mem_peak.avail_kb = 65000;
	cause_pick(&p.r);
	tap_ok(&t, t_has(p.pt.cause, "ibv_create_cq ENOMEM in a client agent (2 times): kernel memory: "
		       "MemAvailable 65000 KiB at the peak (the largest client agent process held 500"),
	       "client's ENOMEM: its own side's maps decide, the peak's MemAvailable without a floor");

	t_setup(&p, "ibv_create_qp", 12, "ENOMEM", false, 1);
	cause_pick(&p.r);
	tap_ok(&t, t_has(p.pt.cause, "memory maps per process (vm.max_map_count=") &&
			   t_has(p.pt.cause, "or kernel memory"),
	       "maps not read (--hosts): both causes named");
}

static void t_floor_and_device(void)
{
	static struct t_point p;

	t_setup(&p, "ibv_create_qp", 12, "ENOMEM", true, 4);
	p.pt.srv_maps_max = 100;
	p.pt.mem_floor_hit = true;
	p.pt.mem_floor_kb = 65536;
	p.pt.mem_floor_avail_kb = 65000;
	p.pt.mem_floor_connected = 28123;
	p.pt.mem_avail_min_kb = 64000;
	cause_pick(&p.r);
	tap_ok(&t, !strncmp(p.pt.cause, "memory: MemAvailable fell to 65000 KiB (floor 65536 KiB) with "
			   "28123 of 30000 connected", 80) &&
			   t_has(p.pt.cause, "; ibv_create_qp ENOMEM at the server (4 times): kernel memory"),
	       "the floor first, then the server's call");

	t_setup(&p, "ibv_create_qp", 22, "EINVAL", true, 5);
	cause_pick(&p.r);
	tap_ok(&t, !strcmp(p.pt.cause, "ibv_create_qp EINVAL at the server (5 times): device max_qp"),
	       "EINVAL at the server: the device's max_qp");

	t_setup(&p, "rdma_connect", 110, "UNREACHABLE", false, 17);
	cause_pick(&p.r);
	tap_ok(&t, t_has(p.pt.cause, "rdma_connect UNREACHABLE (17 times): the CM gave up") &&
			   !strstr(p.pt.cause, "--timeout"),
	       "UNREACHABLE (ETIMEDOUT): the CM's, not rdmacap's deadline");
}

int main(void)
{
	long cap = t_max_map_count();

	tap_init(&t, stdout);
	if (cap <= 0) {
		tap_skip_all(&t, "vm.max_map_count unreadable");
		return tap_exit_code(&t);
	}
	tap_plan(&t, 7);
	t_enomem(cap);
	t_floor_and_device();
	return tap_exit_code(&t);
}
