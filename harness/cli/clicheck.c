// SPDX-License-Identifier: MIT
/*
 * The rules a parsed command line must meet before anything exists: each
 * check names the option that breaks one and stops there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fiopt.h"
#include "common/nvopt.h"
#include "harness/certs/certs.h"
#include "harness/cli/clicheck.h"
#include "harness/cli/cli.h"
#include "harness/hosts/hosts.h"
#include "harness/cli/usage.h"
#include "netns/netns.h"
#include "rdma/cap.h"

/* report: every input must be readable now, before any output is written */
static int clicheck_files(struct hp_plan *p, FILE *err)
{
	for (int i = 0; i <= p->nfiles; i++) {
		const char *f = i < p->nfiles ? p->files[i] : p->baseline;
		struct stat st;
		int fd;

		if (!f)
			continue;
		fd = open(f, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return usage_fail(err, p->cmd, "%s: %s", f, strerror(errno));
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return usage_fail(err, p->cmd, "%s: not a regular file", f);
		}
		close(fd);
	}
	return 0;
}

/* Every client agent gets at most what the agent's --clients allows. */
static int clicheck_per_agent(struct hp_plan *p, FILE *err)
{
	long most = p->cmd == HP_LIMIT ? p->max : 0, per;

	for (int i = 0; i < p->npoints; i++)
		most = p->clients[i] > most ? p->clients[i] : most;
	per = p->agents ? (most + p->agents - 1) / p->agents : 0;
	if (per > opt_defs[OPT_CLIENTS].max)
		return usage_fail(err, p->cmd, "--clients %ld over --agents %ld is %ld per agent "
			       "(an agent takes at most %lld)", most, p->agents, per,
			       opt_defs[OPT_CLIENTS].max);
	return 0;
}

/*
 * --json is written when the run ends (a temp file beside it, renamed over it):
 * its folder must take a new file now, or the whole run would be lost.
 */
static int clicheck_json(struct hp_plan *p, FILE *err)
{
	char tmp[4096];
	struct stat st;
	int fd;

	if (!p->json)
		return 0;
	if (!*p->json)
		return usage_fail(err, p->cmd, "--json: empty file name");
	if (!stat(p->json, &st) && !S_ISREG(st.st_mode))
		return usage_fail(err, p->cmd, "--json %s: %s", p->json,
			       S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", p->json, (int)getpid()) >= (int)sizeof(tmp))
		return usage_fail(err, p->cmd, "--json %s: %s", p->json, strerror(ENAMETOOLONG));
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return usage_fail(err, p->cmd, "--json %s: cannot create a file beside it (%s): %s",
			       p->json, tmp, strerror(errno));
	close(fd);
	if (unlink(tmp))
		return usage_fail(err, p->cmd, "--json %s: unlink %s: %s", p->json, tmp,
			       strerror(errno));
	return 0;
}

/* --fault: what it strikes must exist in the plan */
static int clicheck_fault(struct hp_plan *p, FILE *err)
{
	if (p->fault_at_set && p->fault.kind == FLT_NONE)
		return usage_fail(err, p->cmd, "--fault-at needs --fault");
	if (flt_on_links(&p->fault) && (p->topo.kind == NN_LOOP || p->topo.kind == NN_HOST))
		return usage_fail(err, p->cmd, "--fault %s acts on the topology's links: it needs "
			       "--topology pair or star:K", p->fault.text);
	if (p->fault.kind == FLT_KILL_CLIENT && p->agents && p->fault.n > p->agents)
		return usage_fail(err, p->cmd, "--fault %s: only %ld client agents (--agents)",
			       p->fault.text, p->agents);
	return 0;
}

/*
 * --launcher: another launcher than ssh starts agents on --hosts; --hosts
 * slurm is the allocation's nodes, which only srun reaches; the words of a
 * host that are ssh's (user@, :port) and --push (scp) mean nothing else.
 */
static int clicheck_launcher(const struct hp_plan *p, FILE *err)
{
	struct hosts_list *l;
	char msg[320];
	int bad = 0;

	if (p->launcher != HOSTS_SSH && !p->hosts)
		return usage_fail(err, p->cmd, "--launcher is an option of --hosts");
	if (!p->hosts || p->launcher == HOSTS_SSH) {
		if (p->hosts && hosts_is_slurm(p->hosts))
			return usage_fail(err, p->cmd, "--hosts %s: the nodes of a Slurm "
					  "allocation, reached with --launcher srun", HOSTS_SLURM);
		return 0;
	}
	if (p->push)
		return usage_fail(err, p->cmd, "--push copies with scp: a --launcher ssh option");
	if (hosts_is_slurm(p->hosts)) {
		if (hosts_slurm_check(p->hosts, msg, sizeof(msg)))
			return usage_fail(err, p->cmd, "--hosts %s", msg);
		if (p->launcher != HOSTS_SRUN)
			return usage_fail(err, p->cmd, "--hosts %s needs --launcher srun",
					  HOSTS_SLURM);
		if (!getenv("SLURM_JOB_NODELIST"))
			return usage_fail(err, p->cmd, "--hosts %s: not inside a Slurm allocation "
					  "(no SLURM_JOB_NODELIST: run under salloc or sbatch)",
					  HOSTS_SLURM);
		return 0;
	}
	l = malloc(sizeof(*l));
	if (!l)
		return usage_fail(err, p->cmd, "malloc: %s", strerror(errno));
	if (hosts_parse(p->hosts, l, msg, sizeof(msg))) {
		free(l);
		return usage_fail(err, p->cmd, "--hosts: %s", msg);
	}
	for (int k = 0; k < l->n && !bad; k++)
		bad = l->h[k].user[0] || l->h[k].port || strchr(l->h[k].name, ':') ? k + 1 : 0;
	if (bad)
		snprintf(msg, sizeof(msg), "%s", l->h[bad - 1].scp);
	free(l);
	/* srun takes node names; mpirun's --host reads a colon as its slot count */
	if (bad)
		return usage_fail(err, p->cmd, "--hosts %s: user@, :port and [IPv6] are ssh's, not "
				  "--launcher %s's", msg, hosts_launcher(p->launcher));
	return 0;
}

/* The --hosts list, and --server-host one of its hosts. 0, or -1 with msg. */
static int clicheck_hosts(const struct hp_plan *p, char *msg, size_t len)
{
	struct hosts_list *l = malloc(sizeof(*l));
	int rc;

	if (!l) {
		snprintf(msg, len, "malloc: %s", strerror(errno));
		return -1;
	}
	rc = hosts_parse(p->hosts, l, msg, len);
	if (!rc && p->server_host)
		rc = hosts_server_first(l, p->server_host, msg, len);
	free(l);
	return rc;
}

/*
 * --topology host and --hosts: the options that name this host's own device and
 * address mean nothing where rdmacap makes its own rxe; --hosts is a host topology.
 */
static int clicheck_host(struct hp_plan *p, const bool seen[OPT_N], FILE *err)
{
	char msg[320];

	if (p->hosts && p->cmd != HP_DOWN) {
		if (p->topo_set && p->topo.kind != NN_HOST)
			return usage_fail(err, p->cmd, "--hosts runs on --topology host, not %s",
				       p->topo_spec);
		strcpy(p->topo_spec, "host");
		p->topo.kind = NN_HOST;
		p->topo.nclients = 1;
	}
	if (clicheck_launcher(p, err))
		return -1;
	if (p->hosts && !hosts_is_slurm(p->hosts) && clicheck_hosts(p, msg, sizeof(msg)))
		return usage_fail(err, p->cmd, "--hosts: %s", msg);
	if (p->server_host && !p->hosts)
		return usage_fail(err, p->cmd, "--server-host is an option of --hosts");
	if ((p->agent_path || p->push) && !p->hosts)
		return usage_fail(err, p->cmd, "--%s is an option of --hosts",
			       p->push ? "push" : "agent-path");
	if (p->cmd == HP_UP && p->topo.kind == NN_HOST)
		return usage_fail(err, p->cmd, "--topology host: there is nothing to bring up");
	if (!(HP_LOAD & HP_B(p->cmd)) || p->topo.kind == NN_HOST)
		return 0;
	for (int i = 0; i < OPT_N; i++)
		if (seen[i] && (opt_defs[i].flags & OPT_F_HOST))
			return usage_fail(err, p->cmd, "--%s is an option of --topology host "
				       "(--topology %s makes its own rxe)", opt_defs[i].name,
				       p->topo_spec);
	if (p->server_addr[0] || p->tune)
		return usage_fail(err, p->cmd, "--%s is an option of --topology host",
			       p->tune ? "tune" : "server-addr");
	return 0;
}

/*
 * --family names the GID's family on the host topology, as --server-addr's
 * address has one: the two given apart must agree.
 */
static int clicheck_family(const struct hp_plan *p, const bool seen[OPT_N], FILE *err)
{
	struct ipa a;

	if (!seen[OPT_FAMILY] || !p->server_addr[0] || ipa_parse(&a, p->server_addr) ||
	    a.family == p->topo.family)
		return 0;
	return usage_fail(err, p->cmd, "--family %s and --server-addr %s disagree: %s is an %s address",
			  p->topo.family == AF_INET6 ? "6" : "4", p->server_addr, p->server_addr,
			  a.family == AF_INET6 ? "IPv6" : "IPv4");
}

/*
 * The fi transports' provider when none was given: verbs beneath them where
 * this host has an RDMA device or rxe to make, else TCP (so they run on any
 * machine). Whether the provider is offered is checked once the topology is up
 * (plans.c), where its devices and addresses are.
 */
static void clicheck_fi_default(struct hp_plan *p)
{
	struct nn_caps caps;
	DIR *d;
	struct dirent *e;
	bool rdma = false;

	if (!opt_tr_fi(p->transport) || p->fi_provider[0])
		return;
	d = opendir("/sys/class/infiniband");
	while (d && !rdma && (e = readdir(d)))
		rdma = e->d_name[0] != '.';
	if (d)
		closedir(d);
	if (!rdma && p->topo.kind != NN_HOST && !p->hosts && !nn_probe(&caps, false, NULL))
		rdma = caps.rxe_module;
	snprintf(p->fi_provider, sizeof(p->fi_provider), "%s", opt_fi_default(p->transport, rdma));
}

unsigned clicheck_cap_need(const struct hp_plan *p)
{
	unsigned need = 0;

	/* tcp uses no verbs; nvmf's and srp's are the kernel's, which it checks itself */
	if (p->transport == OPT_TR_TCP || opt_tr_kernel(p->transport) || opt_tr_fi(p->transport))
		return 0;
	if (p->transport == OPT_TR_UD)
		need |= RCAP_UD;
	if (p->transport == OPT_TR_UC)
		need |= RCAP_UC;
	if (p->cm == OPT_CM_OOB_TLS)
		need |= RCAP_OOB;
	if (p->op == OPT_OP_READ)
		need |= RCAP_READ;
	if (p->op == OPT_OP_ATOMIC)
		need |= RCAP_ATOMIC;
	/* a shared QP's SEND carries its client's index in the immediate */
	if (p->qp_share && p->op == OPT_OP_SEND)
		need |= RCAP_IMM;
	return need;
}

/*
 * --topology host --device NAME: a device this host does not have, or one
 * that cannot carry the load, is a usage error, found before anything is
 * made. One that cannot be opened is left to htp_topo, which names what fails.
 */
static int clicheck_device(const struct hp_plan *p, FILE *err)
{
	unsigned need = clicheck_cap_need(p);
	const char *why;
	char buf[200];

	if (p->topo.kind != NN_HOST || p->hosts || !p->device.name[0] ||
	    p->transport == OPT_TR_TCP)
		return 0;
	errno = 0;
	if (rcap_probe(p->device.name, need, &why, buf, sizeof(buf))) {
		if (errno == ENODEV)
			return usage_fail(err, p->cmd, "--device %s: no RDMA device of that name "
					  "on this host (rdma link show lists them)", p->device.name);
		return 0;
	}
	if (!why)
		return 0;
	return usage_fail(err, p->cmd, "%s", why);
}

int clicheck_plan(struct hp_plan *p, const bool seen[OPT_N], FILE *err)
{
	char msg[640];

	if (clicheck_json(p, err))
		return -1;
	if (p->cmd == HP_REPORT)
		return clicheck_files(p, err);
	if (p->cmd == HP_UP || (HP_LOAD & HP_B(p->cmd))) {
		if (nn_parse(p->topo_spec, &p->topo, msg, sizeof(msg)))
			return usage_fail(err, p->cmd, "--topology: %s", msg);
	}
	if (clicheck_host(p, seen, err) || clicheck_family(p, seen, err))
		return -1;
	if (!(HP_LOAD & HP_B(p->cmd)))
		return 0;
	if (p->cmd == HP_STORM) {
		/* a storm is measured by the first message after everyone connected */
		if (!p->msgs_set)
			p->msgs = 1;
		if (p->stagger_ms)
			return usage_fail(err, p->cmd, "--stagger-ms: a storm connects at the same instant");
	}
	if (p->npoints > 1 && p->cmd != HP_RAMP)
		return usage_fail(err, p->cmd, "--clients: a list is only for ramp");
	/* the kernel's services live in the initial network namespace */
	if (p->transport == OPT_TR_NVMF && p->topo.kind != NN_HOST)
		return usage_fail(err, p->cmd, "--transport nvmf runs on --topology host or --hosts, "
				  "not %s: the kernel's nvme-rdma and nvmet-rdma open their rdma_cm "
				  "ids in the initial network namespace", p->topo_spec);
	/* its login is of the target's host: clients on other hosts need ib_srpt's GUID */
	if (p->transport == OPT_TR_SRP && (p->topo.kind != NN_HOST || p->hosts))
		return usage_fail(err, p->cmd, "--transport srp runs on --topology host, not %s: "
				  "the kernel's ib_srp and ib_srpt open their rdma_cm ids in the "
				  "initial network namespace, and a login names the target's GUID, "
				  "which only its host's ib_srpt shows", p->hosts ? "--hosts" :
				  p->topo_spec);
	/* the agent's own cross-option rules, so that no agent exits with a usage error */
	if (nvopt_rules(p->transport, seen, msg, sizeof(msg)) ||
	    opt_rules(p->transport, seen, msg, sizeof(msg)) ||
	    fiopt_rules(p->transport, seen, p->server_model, p->server_threads, p->poll, msg,
			sizeof(msg)) ||
	    opt_cm_rules(p->transport, p->cm, seen, msg, sizeof(msg)) ||
	    opt_ud_rules(p->transport, p->cm, p->size, msg, sizeof(msg)) ||
	    opt_uc_rules(p->transport, p->op, msg, sizeof(msg)) ||
	    opt_thread_rules(p->transport, p->server_model, p->cq, p->srq, p->cm, msg,
			     sizeof(msg)))
		return usage_fail(err, p->cmd, "%s", msg);
	clicheck_fi_default(p);
	/* the user's PKI, as the agents will use it, before the topology exists */
	if (p->tls_ca && certs_check(p->tls_ca, p->tls_cert, p->tls_key, msg, sizeof(msg)))
		return usage_fail(err, p->cmd, "%s", msg);
	if (clicheck_fault(p, err))
		return -1;
	if (clicheck_device(p, err))
		return -1;
	if (p->cmd == HP_LIMIT && p->start > p->max)
		return usage_fail(err, p->cmd, "--start is above --max");
	return clicheck_per_agent(p, err);
}

