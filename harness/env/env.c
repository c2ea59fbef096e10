// SPDX-License-Identifier: MIT
/*
 * rdmacap env: every fact a later SKIP or cause names, as TAP. A fact that is
 * missing is a SKIP with the reason, not a failure: env describes, it does not judge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "harness/env/env.h"
#include "harness/env/envdev.h"
#include "harness/point/memfloor.h"
#include "netns/netns.h"
#include "rdma/dev.h"

static void env_sysctl(struct tap *t, json_t *o, const char *key, const char *why_missing)
{
	char v[128];

	if (nn_sysctl_get("", key, v, sizeof(v))) {
		tap_result(t, TAP_SKIP, why_missing, "%s", key);
		json_object_set_new(o, key, json_null());
		return;
	}
	tap_result(t, TAP_PASS, NULL, "%s = %s", key, v);
	json_object_set_new(o, key, json_string(v));
}

static const char *env_lim(rlim_t v, char *buf, size_t len)
{
	if (v == RLIM_INFINITY)
		return "unlimited";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void env_rlimit(struct tap *t, json_t *o, const char *name, int res)
{
	char a[32], b[32];
	struct rlimit rl;

	if (getrlimit(res, &rl)) {
		tap_result(t, TAP_FAIL, NULL, "%s: getrlimit failed", name);
		return;
	}
	env_lim(rl.rlim_cur, a, sizeof(a));
	env_lim(rl.rlim_max, b, sizeof(b));
	tap_result(t, TAP_PASS, NULL, "%s = %s (hard %s)", name, a, b);
	json_object_set_new(o, name, json_pack("{s:s, s:s}", "soft", a, "hard", b));
}

/* the three averages of a loadavg file, or NULL */
static json_t *env_loadavg(const char *path)
{
	double a[3];
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return NULL;
	n = fscanf(f, "%lf %lf %lf", &a[0], &a[1], &a[2]);
	fclose(f);
	return n == 3 ? json_pack("[f, f, f]", a[0], a[1], a[2]) : NULL;
}

void env_load(json_t *o, const char *when)
{
	const char *host = getenv("RDMACAP_HOST_LOADAVG");
	char key[64];
	json_t *v;

	snprintf(key, sizeof(key), "loadavg_%s", when);
	v = env_loadavg("/proc/loadavg");
	json_object_set_new(o, key, v ? v : json_null());
	if (!host || !*host)
		return;
	snprintf(key, sizeof(key), "host_loadavg_%s", when);
	v = env_loadavg(host);
	json_object_set_new(o, key, v ? v : json_null());
}

const char *env_virt(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static const struct {
		const char *sig, *word;
	} known[] = {
		{ "TCGTCGTCGTCG", "qemu-tcg" }, { "KVMKVMKVM", "kvm" },
		{ "Microsoft Hv", "hyperv" },   { "VMwareVMware", "vmware" },
		{ "XenVMMXenVMM", "xen" },      { "VBoxVBoxVBox", "virtualbox" },
	};
	static char other[32];
	unsigned a, b, c, d;
	char sig[13];

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return "unknown";
	if (!(c & (1u << 31)))
		return "none";
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(sig, known[i].sig))
			return known[i].word;
	snprintf(other, sizeof(other), "hypervisor %.12s", sig);
	return other;
#else
	return "unknown";
#endif
}

int env_collect(struct tap *t, json_t *o, bool deep)
{
	struct rdev_info dev[RDEV_MAX_DEVS];
	struct rdev_err err;
	struct nn_caps c;
	json_t *devs = json_array();
	int n;

	nn_probe(&c, deep, NULL);
	tap_result(t, TAP_PASS, NULL, "kernel %s", c.kernel);
	json_object_set_new(o, "kernel", json_string(c.kernel));
	tap_result(t, TAP_PASS, NULL, "virtualization %s", env_virt());
	json_object_set_new(o, "virtualization", json_string(env_virt()));
	tap_result(t, c.root ? TAP_PASS : TAP_SKIP, c.root ? NULL : "topologies need root",
		   "root (CAP_NET_ADMIN, CAP_SYS_ADMIN)");
	json_object_set_new(o, "root", json_boolean(c.root));
	tap_result(t, c.ip_tool && c.rdma_tool ? TAP_PASS : TAP_SKIP,
		   c.ip_tool && c.rdma_tool ? NULL : "install iproute2", "iproute2 ip and rdma");
	tap_result(t, c.netns ? TAP_PASS : TAP_SKIP, c.netns ? NULL : c.why_netns,
		   "network namespaces");
	json_object_set_new(o, "netns", json_boolean(c.netns));
	tap_result(t, c.rxe_module ? TAP_PASS : TAP_SKIP, c.rxe_module ? NULL : c.why_rxe,
		   "rdma_rxe module");
	json_object_set_new(o, "rdma_rxe", json_boolean(c.rxe_module));
	tap_result(t, c.rxe_netns ? TAP_PASS : TAP_SKIP, c.rxe_netns ? NULL : c.why_rxe_netns,
		   "rxe inside network namespaces (Linux >= 7.1)%s", deep ? "" : " [shallow probe]");
	json_object_set_new(o, "rxe_netns", json_boolean(c.rxe_netns));
	json_object_set_new(o, "rxe_netns_why", json_string(c.why_rxe_netns));

	n = rdev_list(dev, RDEV_MAX_DEVS, &err);
	if (n < 0)
		fprintf(stderr, "rdmacap: %s\n", err.msg);
	if (n <= 0)
		tap_result(t, TAP_SKIP, n < 0 ? "ibv_get_device_list failed" : "no RDMA device",
			   "RDMA devices");
	for (int i = 0; i < n; i++) {
		struct rdev_info *d = &dev[i];
		json_t *dj;

		tap_diag(t, "dev=%s netdev=%s port=%s mtu=%d max_qp=%d max_cq=%d max_cqe=%d "
			 "max_mr=%d max_pd=%d max_srq=%d max_qp_wr=%d max_ah=%d max_sge=%d",
			 d->name, d->netdev, d->port_state_str, d->active_mtu, d->max_qp, d->max_cq,
			 d->max_cqe, d->max_mr, d->max_pd, d->max_srq, d->max_qp_wr, d->max_ah,
			 d->max_sge);
		dj = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, "
					"s:i, s:I, s:i}",
					"name", d->name, "netdev", d->netdev, "port_state",
					d->port_state_str ? d->port_state_str : "?", "active_mtu",
					d->active_mtu, "max_qp", d->max_qp, "max_cq", d->max_cq,
					"max_cqe", d->max_cqe, "max_mr", d->max_mr, "max_pd", d->max_pd,
					"max_srq", d->max_srq, "max_qp_wr", d->max_qp_wr, "max_ah",
					d->max_ah, "max_sge", d->max_sge, "max_mr_size",
					(json_int_t)d->max_mr_size, "roce4_gid_index",
					d->roce4_gid_index);
		envdev_ports(t, dj, d->name);
		tap_result(t, TAP_PASS, NULL, "device %s (ibv_query_device)", d->name);
		json_array_append_new(devs, dj);
	}
	json_object_set_new(o, "devices", devs);

	env_sysctl(t, o, "vm.max_map_count", "not readable");
	env_rlimit(t, o, "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK);
	env_rlimit(t, o, "RLIMIT_NOFILE", RLIMIT_NOFILE);
	env_sysctl(t, o, "fs.nr_open", "not readable");
	env_sysctl(t, o, "fs.file-max", "not readable");
	env_sysctl(t, o, "net.rdma_ucm.max_backlog", "rdma_ucm not loaded");
	env_sysctl(t, o, "net.core.somaxconn", "not readable");
	env_sysctl(t, o, "net.ipv4.ip_local_port_range", "not readable");
	{
		char why[128];
		bool can = mf_oom_can_protect(why, sizeof(why));

		/* said here once, not on every run: nothing is wrong with a run without it */
		tap_result(t, can ? TAP_PASS : TAP_SKIP,
			   can ? NULL : why[0] ? why : "unknown",
			   "OOM protection: rdmacap can put its oom_score_adj at -1000, so the "
			   "OOM killer picks an agent, not it");
		json_object_set_new(o, "oom_protect", json_boolean(can));
		json_object_set_new(o, "oom_protect_why", json_string(why));
	}
	json_object_set_new(o, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(o, "mem_kb", json_integer(sysconf(_SC_PHYS_PAGES) *
						      (sysconf(_SC_PAGESIZE) / 1024)));
	return 0;
}
