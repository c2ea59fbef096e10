// SPDX-License-Identifier: MIT
/*
 * What this host can do, for `rdmacap env` and for every later SKIP reason.
 *
 * The shallow probe only reads (uname, capabilities, PATH, /sys/module,
 * modules.dep). The deep one acts: creates and deletes a namespace, loads rdma_rxe
 * (and leaves it loaded: the runs that follow need it), and puts a throwaway rxe
 * into a namespace to see whether RoCEv2's UDP port 4791 opens there. Before
 * Linux 7.1 rxe's sockets and routes live in init_net only; a link made in another
 * namespace exists but sends nothing, so version alone decides there.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "netns/nn.h"

#define NN_ROCE_PORT 4791

static bool nn_caps_ok(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d) < 0)
		return false;
	return (d[0].effective & (1u << CAP_NET_ADMIN)) && (d[0].effective & (1u << CAP_SYS_ADMIN));
}

static bool nn_file_has(const char *path, const char *needle)
{
	char line[4096];
	bool found = false;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

static void nn_probe_rxe_module(struct nn_caps *c, bool deep, FILE *log)
{
	char dep[320], builtin[320], dir[256];
	struct nn_cmd m = {.argv = {"modprobe", "rdma_rxe", NULL}};

	if (access("/sys/module/rdma_rxe", F_OK) == 0) {
		c->rxe_module = true;
		return;
	}
	snprintf(dir, sizeof(dir), "/lib/modules/%.64s", c->kernel);
	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	snprintf(builtin, sizeof(builtin), "%s/modules.builtin", dir);
	if (access(dir, F_OK) < 0) {
		snprintf(c->why_rxe, sizeof(c->why_rxe),
			 "rdma_rxe not loaded and no %.70s (no loadable modules)", dir);
		return;
	}
	/* Entries look like "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz: ..." */
	if (!nn_file_has(dep, "/rdma_rxe.ko") && !nn_file_has(builtin, "/rdma_rxe.ko")) {
		snprintf(c->why_rxe, sizeof(c->why_rxe), "rdma_rxe not loaded and not in %.80s",
			 dep);
		return;
	}
	if (!deep) {
		c->rxe_module = true;
		return;
	}
	if (nn_cmd_run(&m, 1, log) < 0) {
		snprintf(c->why_rxe, sizeof(c->why_rxe), "modprobe rdma_rxe failed");
		return;
	}
	c->rxe_module = true;
}

/* An rxe on a veth inside a throwaway namespace: does UDP 4791 open there? */
static void nn_probe_rxe_netns(struct nn_caps *c, FILE *log)
{
	char run[8], prefix[NN_NAME_MAX], ns[1][NN_NAME_MAX], script[256];
	char veth[1][NN_IFNAMSIZ], peer[NN_IFNAMSIZ], rxe[1][NN_IFNAMSIZ];
	const char *why = NULL;
	int bound = -1;

	if (nn_new_run(run) < 0) {
		snprintf(c->why_rxe_netns, sizeof(c->why_rxe_netns), "no free run id");
		return;
	}
	snprintf(prefix, sizeof(prefix), NN_PREFIX "%s", run);
	snprintf(ns[0], sizeof(ns[0]), "%.20s-probe", prefix);
	nn_name_veth(veth[0], sizeof(veth[0]), run, 's', 0);
	nn_name_veth(peer, sizeof(peer), run, 'c', 0);
	nn_name_rxe(rxe[0], sizeof(rxe[0]), run, 0);
	snprintf(script, sizeof(script),
		 "netns add %s\nlink add %s netns %s group %lu type veth peer name %s netns %s\n",
		 ns[0], veth[0], ns[0], nn_group(run), peer, ns[0]);
	if (nn_batch("", "ip", script, false, log) < 0)
		why = "probe namespace with a veth could not be made (see stderr)";
	else if (nn_rxe_add((const char(*)[NN_IFNAMSIZ])rxe, (const char(*)[NN_IFNAMSIZ])veth,
			    (const char(*)[NN_NAME_MAX])ns, 1, log) < 0)
		why = "rdma link add inside a namespace failed (see stderr)";
	else if ((bound = nn_ns_udp_bound(ns[0], NN_ROCE_PORT)) < 0)
		why = "could not read /proc/net/udp inside the probe namespace";
	else if (!bound)
		why = "rxe link made inside a namespace, but UDP 4791 does not listen there";

	if (nn_teardown(prefix, log, NULL) < 0 && !why)
		why = "probe objects could not be removed (see stderr)";
	if (why)
		snprintf(c->why_rxe_netns, sizeof(c->why_rxe_netns), "%s", why);
	else
		c->rxe_netns = true;
}

int nn_probe(struct nn_caps *c, bool deep, FILE *log)
{
	char path[256];
	struct utsname u;

	memset(c, 0, sizeof(*c));
	if (uname(&u) < 0) {
		fprintf(stderr, "netns: uname: %s\n", strerror(errno));
		return -1;
	}
	snprintf(c->kernel, sizeof(c->kernel), "%.63s", u.release);
	if (sscanf(u.release, "%d.%d", &c->kmajor, &c->kminor) != 2)
		c->kmajor = c->kminor = 0;
	c->root = nn_caps_ok();
	c->ip_tool = nn_which("ip", path, sizeof(path)) == 0;
	c->rdma_tool = nn_which("rdma", path, sizeof(path)) == 0;

	if (!c->root)
		snprintf(c->why_netns, sizeof(c->why_netns),
			 "needs CAP_NET_ADMIN and CAP_SYS_ADMIN (run as root)");
	else if (!c->ip_tool)
		snprintf(c->why_netns, sizeof(c->why_netns), "ip (iproute2) not found");
	else if (access("/proc/self/ns/net", F_OK) < 0)
		snprintf(c->why_netns, sizeof(c->why_netns),
			 "kernel without network namespaces (CONFIG_NET_NS)");
	else
		c->netns = true;
	if (c->netns && deep) {
		char run[8], script[128];

		if (nn_new_run(run) < 0) {
			c->netns = false;
			snprintf(c->why_netns, sizeof(c->why_netns), "no free run id");
		} else {
			snprintf(script, sizeof(script),
				 "netns add " NN_PREFIX "%s-probe\nnetns del " NN_PREFIX
				 "%s-probe\n",
				 run, run);
			if (nn_batch("", "ip", script, false, log) < 0) {
				c->netns = false;
				snprintf(c->why_netns, sizeof(c->why_netns),
					 "ip netns add failed (see stderr)");
			}
		}
	}

	nn_probe_rxe_module(c, deep, log);

	if (!c->rxe_module) {
		snprintf(c->why_rxe_netns, sizeof(c->why_rxe_netns), "no rdma_rxe: %.100s",
			 c->why_rxe);
	} else if (c->kmajor < 7 || (c->kmajor == 7 && c->kminor < 1)) {
		snprintf(c->why_rxe_netns, sizeof(c->why_rxe_netns),
			 "Linux %d.%d < 7.1: rxe sockets live in init_net only", c->kmajor,
			 c->kminor);
	} else if (!deep) {
		c->rxe_netns = true;
		snprintf(c->why_rxe_netns, sizeof(c->why_rxe_netns),
			 "Linux %d.%d >= 7.1, not tried (deep probe tries it)", c->kmajor,
			 c->kminor);
	} else if (!c->netns || !c->rdma_tool) {
		snprintf(c->why_rxe_netns, sizeof(c->why_rxe_netns), "%s",
			 !c->netns ? "no namespaces" : "rdma (iproute2) not found");
	} else {
		nn_probe_rxe_netns(c, log);
	}
	return 0;
}
