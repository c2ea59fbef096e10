// SPDX-License-Identifier: MIT
/*
 * Command line of rdmacap: the option table and its parser. One table for every
 * subcommand, with a mask of the subcommands each option applies to, so that
 * "rdmacap env --clients 5" is an error that names the option instead of being
 * silently ignored. What the parsed plan must then meet is clicheck.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/clicheck.h"
#include "harness/cli/cli.h"
#include "harness/cli/usage.h"
#include "harness/hosts/hosts.h"

const char *const hp_names[HP_NCMD] = {
	[HP_ENV] = "env",   [HP_UP] = "up",       [HP_DOWN] = "down",   [HP_RUN] = "run",
	[HP_RAMP] = "ramp", [HP_LIMIT] = "limit", [HP_STORM] = "storm", [HP_REPORT] = "report",
};

const char *const hp_usages[HP_NCMD] = {
	[HP_ENV] = "rdmacap env [--deep] [--json FILE]",
	[HP_UP] = "rdmacap up [--topology loop|pair|star:K] [--rxe] [--run ID]",
	[HP_DOWN] = "rdmacap down [--run ID] [--hosts FILE|LIST [--launcher L]]",
	[HP_RUN] = "rdmacap run [LOAD OPTIONS] [--clients N]",
	[HP_RAMP] = "rdmacap ramp [LOAD OPTIONS] [--clients N1,N2,...]",
	[HP_LIMIT] = "rdmacap limit [LOAD OPTIONS] [--max N] [--start N] [--steps S] [--budget SEC]",
	[HP_STORM] = "rdmacap storm [LOAD OPTIONS] [--clients N]",
	[HP_REPORT] = "rdmacap report [--baseline OLD.json] [--md FILE] [--svg FILE] RUN.json...",
};

/* total clients of a point, and of --max/--start; per agent, opt_defs[OPT_CLIENTS] */
#define HP_MAX_CLIENTS 10000000

const char hp_ramp_clients[] = "10,50,100,200,300,400,500";

#define LOAD HP_LOAD
/* --fault: the commands whose points have one traffic phase to strike */
#define HP_FAULT_CMDS (HP_B(HP_RUN) | HP_B(HP_RAMP) | HP_B(HP_STORM))
#define B HP_B
#define S(id, c, g, ...) { .val = HP_O_SHARED + (id), .cmds = (c), .group = (g), __VA_ARGS__ }
const struct hp_opt hp_opts[] = {
	{ "clients", 1, HP_O_CLIENTS, LOAD, HG_LOAD, "N[,N...]", 1, HP_MAX_CLIENTS, "100",
	  "connections of a point, over all agents (ramp: one point per N)" },
	{ "agents", 1, HP_O_AGENTS, LOAD, HG_LOAD, "P", 1, 100000, NULL,
	  "client agent processes sharing the connections; default: as the limits need" },
	{ "repeat", 1, HP_O_REPEAT, B(HP_RUN) | B(HP_RAMP) | B(HP_STORM), HG_LOAD, "R", 1,
	  HP_MAX_REPEAT, "1", "run each point R times; figures as min/median/max over them" },
	S(OPT_MSGS, LOAD, HG_LOAD),
	S(OPT_SIZE, LOAD, HG_LOAD),
	S(OPT_THINK_MS, LOAD, HG_LOAD),
	S(OPT_STAGGER_MS, LOAD, HG_LOAD),
	S(OPT_WORKERS, LOAD, HG_LOAD),
	S(OPT_QP_SHARE, LOAD, HG_LOAD),
	S(OPT_TIMEOUT, LOAD, HG_LOAD),
	S(OPT_MEM_FLOOR, LOAD, HG_LOAD,
	  .def = "64, 2% of MemTotal or vm.min_free_kbytes, the most"),
	S(OPT_SERVER_MODEL, LOAD, HG_LOAD),
	S(OPT_SERVER_THREADS, LOAD, HG_LOAD),
	S(OPT_PORTS, LOAD, HG_LOAD, .def = "automatic"),
	{ "fault", 1, HP_O_FAULT, HP_FAULT_CMDS, HG_LOAD, "SPEC", 0, 0, NULL,
	  "inject one failure into the traffic phase, undone when the point ends: "
	  "kill-client[:N], kill-server, stop-server:MS, link-down[:MS][:server], loss:PCT, "
	  "delay:MS[:JITTER], reorder:PCT (netem: needs sch_netem)" },
	{ "fault-at", 1, HP_O_FAULT_AT, HP_FAULT_CMDS, HG_LOAD, "MS", 0, 86400000, NULL,
	  "when --fault strikes, in ms after the traffic starts; default a third of "
	  "--msgs x --think-ms" },
	{ "topology", 1, HP_O_TOPO, LOAD | B(HP_UP), HG_TOPO, "loop|pair|star:K|host", 0, 0, "pair",
	  "namespaces: none, a server and a client, a server and K clients; host: "
	  "this host's devices as they are" },
	S(OPT_FAMILY, LOAD | B(HP_UP), HG_TOPO),
	S(OPT_DEVICE, LOAD, HG_TOPO),
	S(OPT_GID_INDEX, LOAD, HG_TOPO),
	S(OPT_SL, LOAD, HG_TOPO),
	S(OPT_TCLASS, LOAD, HG_TOPO),
	{ "server-addr", 1, HP_O_SERVER_ADDR, LOAD, HG_TOPO, "A", 0, 0, NULL,
	  "host: the server's IPv4 or IPv6 address; default: the device's, or the server host's" },
	{ "tune", 0, HP_O_TUNE, LOAD, HG_TOPO, NULL, 0, 0, NULL,
	  "host: set the sysctls that would help, restored at the end" },
	{ "hosts", 1, HP_O_HOSTS, LOAD | B(HP_DOWN), HG_TOPO, "FILE|LIST|slurm[:NODE/DEV,...]", 0, 0,
	  NULL, "[user@]host[:port][/device],...: the server host, then the client hosts (over "
	  "ssh); slurm: the allocation's nodes, NODE/DEV naming a node's device" },
	{ "server-host", 1, HP_O_SERVER_HOST, LOAD, HG_TOPO, "NAME", 0, 0, NULL,
	  "hosts: the host of --hosts that runs the server agents (slurm: a node of the "
	  "allocation); default: the first" },
	{ "agent-path", 1, HP_O_AGENT_PATH, LOAD | B(HP_DOWN), HG_TOPO, "PATH", 0, 0, NULL,
	  "hosts: the agent on the remote hosts; default: the local agent's path" },
	{ "push", 0, HP_O_PUSH, LOAD, HG_TOPO, NULL, 0, 0, NULL,
	  "hosts: copy the agent there (scp) and check its libraries (ldd)" },
	{ "launcher", 1, HP_O_LAUNCHER, LOAD | B(HP_DOWN), HG_TOPO, HOSTS_LAUNCHERS, 0, 0, "ssh",
	  "hosts: what starts the agents there: OpenSSH, Slurm job steps of this "
	  "allocation (--hosts slurm: its nodes), Open MPI's mpirun (one job per agent)" },
	{ "rxe", 0, HP_O_RXE, LOAD | B(HP_UP), HG_TOPO, NULL, 0, 0, NULL,
	  "add Soft-RoCE (rxe) links (always with --transport rc)" },
	{ "run", 1, HP_O_RUN, B(HP_UP) | B(HP_DOWN), HG_TOPO, "ID", 0, 0, NULL,
	  "run id, 4 hex digits (up: new; down: default every rdc* object)" },
	S(OPT_TRANSPORT, LOAD, HG_TRANSPORT),
	S(OPT_CM, LOAD, HG_TRANSPORT),
	S(OPT_CM_ORDER, LOAD, HG_TRANSPORT),
	S(OPT_CQ, LOAD, HG_TRANSPORT),
	S(OPT_MR, LOAD, HG_TRANSPORT),
	S(OPT_SRQ, LOAD, HG_TRANSPORT),
	S(OPT_RX_DEPTH, LOAD, HG_TRANSPORT),
	S(OPT_OP, LOAD, HG_TRANSPORT),
	S(OPT_OOB_SESSION, LOAD, HG_TRANSPORT),
	S(OPT_POLL, LOAD, HG_TRANSPORT),
	S(OPT_AH, LOAD, HG_TRANSPORT),
	S(OPT_AH_MAX, LOAD, HG_TRANSPORT),
	S(OPT_TLS_CA, LOAD, HG_TRANSPORT, .def = "a throwaway PKI per run"),
	S(OPT_TLS_CERT, LOAD, HG_TRANSPORT),
	S(OPT_TLS_KEY, LOAD, HG_TRANSPORT),
	S(OPT_NVME_IO_QUEUES, LOAD, HG_TRANSPORT),
	S(OPT_NVME_QUEUE_SIZE, LOAD, HG_TRANSPORT),
	S(OPT_FI_PROVIDER, LOAD, HG_TRANSPORT,
	  .def = "verbs, or verbs;ofi_rxm for fi-rdm; tcp (tcp;ofi_rxm) with no RDMA here"),
	{ "max", 1, HP_O_MAX, B(HP_LIMIT), HG_LIMIT, "N", 1, HP_MAX_CLIENTS, "100000",
	  "most clients tried" },
	{ "start", 1, HP_O_START, B(HP_LIMIT), HG_LIMIT, "N", 1, HP_MAX_CLIENTS, "10",
	  "first point; doubled until a point misses the threshold" },
	{ "steps", 1, HP_O_STEPS, B(HP_LIMIT), HG_LIMIT, "S", 1, 200, "24",
	  "at most this many points" },
	{ "budget", 1, HP_O_BUDGET, B(HP_LIMIT), HG_LIMIT, "SEC", 1, 7 * 86400, "3600",
	  "wall time of the search" },
	{ "threshold", 1, HP_O_THRESH, B(HP_LIMIT), HG_LIMIT, "PCT[,PCT]", 1, 100, "100,95",
	  "success percentages whose largest N is searched" },
	{ "baseline", 1, HP_O_BASELINE, B(HP_REPORT), HG_INPUT, "FILE", 0, 0, NULL,
	  "an earlier run's JSON, shown side by side" },
	{ "json", 1, HP_O_JSON, LOAD | B(HP_ENV), HG_OUTPUT, "FILE", 0, 0, NULL,
	  "write the results as JSON (its folder must be writable)" },
	{ "md", 1, HP_O_MD, B(HP_REPORT), HG_OUTPUT, "FILE", 0, 0, NULL,
	  "Markdown table (default: on stdout)" },
	{ "svg", 1, HP_O_SVG, B(HP_REPORT), HG_OUTPUT, "FILE", 0, 0, NULL, "SVG chart" },
	{ "figures", 0, HP_O_FIGURES, B(HP_REPORT), HG_OUTPUT, NULL, 0, 0, NULL,
	  "print the table of a point's figures as Markdown (docs/figures.md), no files" },
	{ "deep", 0, HP_O_DEEP, B(HP_ENV), HG_OUTPUT, NULL, 0, 0, NULL,
	  "really create a probe rxe link" },
	{ "verbose", 0, HP_O_VERBOSE, ~0u, HG_GENERAL, NULL, 0, 0, NULL,
	  "log every command and agent line on stderr" },
	{ "help", 0, HP_O_HELP, ~0u, HG_GENERAL, NULL, 0, 0, NULL, "this help" },
};
#undef S
const size_t hp_nopts = sizeof(hp_opts) / sizeof(hp_opts[0]);
#define HP_NOPTS (sizeof(hp_opts) / sizeof(hp_opts[0]))

const char *hp_optname(const struct hp_opt *o)
{
	return o->name ? o->name : opt_defs[o->val - HP_O_SHARED].name;
}

int hp_opt_has_arg(const struct hp_opt *o)
{
	return o->name ? o->has_arg : opt_defs[o->val - HP_O_SHARED].kind != OPT_FLAG;
}

static const struct hp_opt *hp_opt_of(int val)
{
	for (size_t i = 0; i < HP_NOPTS; i++)
		if (hp_opts[i].val == val)
			return &hp_opts[i];
	return NULL;
}

static int hp_long(const char *s, long min, long max, long *out)
{
	long long v;

	if (opt_num(s, min, max, &v))
		return -1;
	*out = (long)v;
	return 0;
}

/* "10,50,100" -> out[]; items in [lo, hi] */
static int hp_list(const char *s, long lo, long hi, long *out, int max, int *n)
{
	const char *p = s;

	*n = 0;
	while (1) {
		char item[24];
		size_t len = strcspn(p, ",");

		if (!len || len >= sizeof(item) || *n == max)
			return -1;
		memcpy(item, p, len);
		item[len] = '\0';
		if (hp_long(item, lo, hi, &out[*n]))
			return -1;
		(*n)++;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

int hp_parse_list(const char *s, long *out, int max, int *n)
{
	const struct hp_opt *o = hp_opt_of(HP_O_CLIENTS);

	return hp_list(s, o->min, o->max, out, max, n);
}

static int hp_thresholds(const struct hp_opt *o, const char *s, double *t)
{
	long v[2];
	int n;

	if (hp_list(s, o->min, o->max, v, 2, &n))
		return -1;
	t[0] = (double)v[0];
	t[1] = n == 2 ? (double)v[1] : t[0];
	return 0;
}

/* an option the agent also takes: its table parses it, the plan keeps the value */
static int hp_shared(struct hp_plan *p, enum opt_id id, const char *v, char *err, size_t len)
{
	long long x;

	if (opt_parse(id, v, &x, err, len))
		return -1;
	switch (id) {
	case OPT_TRANSPORT: p->transport = (enum opt_transport)x; break;
	case OPT_CM: p->cm = (enum opt_cm)x; break;
	case OPT_CM_ORDER: p->cm_order = (enum opt_cm_order)x; break;
	case OPT_SERVER_MODEL: p->server_model = (enum opt_model)x; break;
	case OPT_CQ: p->cq = (enum opt_cq)x; break;
	case OPT_MR: p->mr = (enum opt_mr)x; break;
	case OPT_OP: p->op = (enum opt_op)x; break;
	case OPT_OOB_SESSION: p->oob_session = (enum opt_oob_session)x; break;
	case OPT_SRQ: p->srq = true; break;
	case OPT_RX_DEPTH: p->rx_depth = (long)x; break;
	case OPT_POLL: p->poll = (enum opt_poll)x; break;
	case OPT_AH: p->ah = (enum opt_ah)x; break;
	case OPT_AH_MAX: p->ah_max = (long)x; break;
	case OPT_SIZE: p->size = (long)x; break;
	case OPT_MSGS: p->msgs_set = true; p->msgs = (long)x; break;
	case OPT_TIMEOUT: p->timeout_set = true; p->timeout_s = (long)x; break;
	case OPT_MEM_FLOOR: p->mem_floor_mib = (long)x; break;
	case OPT_FAMILY: p->topo.family = x == OPT_FAM_6 ? AF_INET6 : AF_INET; break;
	case OPT_SERVER_THREADS: p->server_threads = (long)x; break;
	case OPT_WORKERS: p->workers = (long)x; break;
	case OPT_QP_SHARE: p->qp_share = (long)x; break;
	case OPT_PORTS: p->ports = (long)x; break;
	case OPT_THINK_MS: p->think_ms = (long)x; break;
	case OPT_STAGGER_MS: p->stagger_ms = (long)x; break;
	case OPT_TLS_CA: p->tls_ca = v; break;
	case OPT_TLS_CERT: p->tls_cert = v; break;
	case OPT_TLS_KEY: p->tls_key = v; break;
	case OPT_FI_PROVIDER: snprintf(p->fi_provider, sizeof(p->fi_provider), "%s", v); break;
	case OPT_DEVICE: opt_device(v, &p->device); break;
	case OPT_GID_INDEX: p->gid_index = (int)x; break;
	case OPT_SL: p->sl = (int)x; break;
	case OPT_TCLASS: p->tclass = (int)x; break;
	case OPT_NVME_IO_QUEUES: p->nvme_io_queues = (long)x; break;
	case OPT_NVME_QUEUE_SIZE: p->nvme_queue_size = (long)x; break;
	case OPT_CLIENTS: /* rdmacap's --clients is a total: HP_O_CLIENTS */
	case OPT_N:
		snprintf(err, len, "internal: option %d", id);
		return -1;
	}
	return 0;
}

/* v as the index of one of arg's '|'-separated words, the row's own spelling */
static int hp_word(const char *arg, const char *v, int *out)
{
	size_t len = strlen(v);
	int i = 0;

	for (const char *w = arg; *w; w += strcspn(w, "|"), w += *w == '|', i++) {
		if (strcspn(w, "|") == len && !strncmp(w, v, len)) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

static int hp_apply(struct hp_plan *p, const struct hp_opt *o, const char *v)
{
	switch (o->val) {
	case HP_O_CLIENTS: return hp_parse_list(v, p->clients, HP_MAX_POINTS, &p->npoints);
	case HP_O_AGENTS: return hp_long(v, o->min, o->max, &p->agents);
	case HP_O_REPEAT: return hp_long(v, o->min, o->max, &p->repeat);
	case HP_O_MAX: return hp_long(v, o->min, o->max, &p->max);
	case HP_O_START: return hp_long(v, o->min, o->max, &p->start);
	case HP_O_STEPS: return hp_long(v, o->min, o->max, &p->steps);
	case HP_O_BUDGET: return hp_long(v, o->min, o->max, &p->budget_s);
	case HP_O_THRESH: return hp_thresholds(o, v, p->thresholds);
	case HP_O_TOPO:
		if (strlen(v) >= sizeof(p->topo_spec))
			return -1;
		strcpy(p->topo_spec, v);
		return 0;
	case HP_O_FAULT_AT:
		p->fault_at_set = true;
		return hp_long(v, o->min, o->max, &p->fault_at_ms);
	case HP_O_SERVER_ADDR: {
		struct ipa a;

		if (ipa_parse(&a, v))
			return -1;
		ipa_str(&a, p->server_addr, sizeof(p->server_addr));
		return 0;
	}
	case HP_O_TUNE: p->tune = true; return 0;
	case HP_O_HOSTS: p->hosts = v; return 0;
	case HP_O_SERVER_HOST: p->server_host = v; return *v && *v != '-' ? 0 : -1;
	case HP_O_AGENT_PATH: p->agent_path = v; return *v == '/' ? 0 : -1;
	case HP_O_PUSH: p->push = true; return 0;
	case HP_O_LAUNCHER: return hp_word(o->arg, v, &p->launcher);
	case HP_O_JSON: p->json = v; return 0;
	case HP_O_RXE: p->rxe = true; return 0;
	case HP_O_DEEP: p->deep = true; return 0;
	case HP_O_VERBOSE: p->verbose = true; return 0;
	case HP_O_BASELINE: p->baseline = v; return 0;
	case HP_O_MD: p->out_md = v; return 0;
	case HP_O_SVG: p->out_svg = v; return 0;
	case HP_O_FIGURES: p->figures = true; return 0;
	case HP_O_RUN:
		if (strlen(v) != 4 || strspn(v, "0123456789abcdef") != 4)
			return -1;
		strcpy(p->run, v);
		return 0;
	}
	return -1;
}

/* the tables' defaults; --clients depends on the command (hp_parse) */
static void hp_defaults(struct hp_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->transport = (enum opt_transport)opt_defs[OPT_TRANSPORT].def;
	p->cm = (enum opt_cm)opt_defs[OPT_CM].def;
	p->cm_order = (enum opt_cm_order)opt_defs[OPT_CM_ORDER].def;
	p->server_model = (enum opt_model)opt_defs[OPT_SERVER_MODEL].def;
	p->cq = (enum opt_cq)opt_defs[OPT_CQ].def;
	p->mr = (enum opt_mr)opt_defs[OPT_MR].def;
	p->op = (enum opt_op)opt_defs[OPT_OP].def;
	p->oob_session = (enum opt_oob_session)opt_defs[OPT_OOB_SESSION].def;
	p->poll = (enum opt_poll)opt_defs[OPT_POLL].def;
	p->ah = (enum opt_ah)opt_defs[OPT_AH].def;
	p->ah_max = opt_defs[OPT_AH_MAX].def;
	p->msgs = opt_defs[OPT_MSGS].def;
	p->size = opt_defs[OPT_SIZE].def;
	p->timeout_s = opt_defs[OPT_TIMEOUT].def;
	p->mem_floor_mib = opt_defs[OPT_MEM_FLOOR].def;
	p->topo.family = opt_defs[OPT_FAMILY].def == OPT_FAM_6 ? AF_INET6 : AF_INET;
	p->server_threads = opt_defs[OPT_SERVER_THREADS].def;
	p->think_ms = opt_defs[OPT_THINK_MS].def;
	p->stagger_ms = opt_defs[OPT_STAGGER_MS].def;
	p->workers = opt_defs[OPT_WORKERS].def;
	p->qp_share = opt_defs[OPT_QP_SHARE].def;
	p->rx_depth = opt_defs[OPT_RX_DEPTH].def;
	p->gid_index = (int)opt_defs[OPT_GID_INDEX].def;
	p->sl = (int)opt_defs[OPT_SL].def;
	p->tclass = (int)opt_defs[OPT_TCLASS].def;
	p->nvme_io_queues = opt_defs[OPT_NVME_IO_QUEUES].def;
	p->nvme_queue_size = opt_defs[OPT_NVME_QUEUE_SIZE].def;
	for (size_t i = 0; i < HP_NOPTS; i++) {
		const struct hp_opt *o = &hp_opts[i];

		/* an own row's default is a value it parses: a typo is a bug, found at once */
		if (o->name && o->def && o->val != HP_O_CLIENTS && hp_apply(p, o, o->def))
			abort();
	}
}

long hp_fault_at(const struct hp_plan *p)
{
	return p->fault_at_set ? p->fault_at_ms : p->msgs * p->think_ms / 3;
}

/* getopt rejected the word it just read: say why */
static int hp_getopt_err(struct hp_plan *p, int argc, char **argv, FILE *err)
{
	/* (argv + 1)[optind - 1] is the word getopt just rejected */
	const char *bad = optind > 1 && optind <= argc - 1 ? argv[optind] : "?";
	const struct hp_opt *o = optopt >= 256 ? hp_opt_of(optopt) : NULL;

	if (o && !hp_opt_has_arg(o))
		return usage_fail(err, p->cmd, "option '--%s' takes no value", hp_optname(o));
	if (o)
		return usage_fail(err, p->cmd, "option '--%s' needs a value", hp_optname(o));
	return usage_fail(err, p->cmd, "unknown or malformed option '%s'", bad);
}

/*
 * Options and files in any order (getopt permutes). Returns 0, 1 after --help,
 * -1 after a message.
 */
static int hp_options(struct hp_plan *p, int argc, char **argv, bool seen[OPT_N], FILE *err)
{
	struct option lo[HP_NOPTS + 1];
	char msg[320];

	for (size_t i = 0; i < HP_NOPTS; i++)
		lo[i] = (struct option){ hp_optname(&hp_opts[i]), hp_opt_has_arg(&hp_opts[i]),
					 NULL, hp_opts[i].val };
	memset(&lo[HP_NOPTS], 0, sizeof(lo[0]));
	optind = 1;
	opterr = 0;
	while (1) {
		int id = getopt_long(argc - 1, argv + 1, "h", lo, NULL);
		const struct hp_opt *o;

		if (id == -1)
			return 0;
		if (id == 'h' || id == HP_O_HELP) {
			if (usage_cmd_help(stdout, p->cmd))
				return usage_fail(err, p->cmd, "--help: stdout: %s", strerror(errno));
			return 1;
		}
		if (id == '?' || id == ':')
			return hp_getopt_err(p, argc, argv, err);
		o = hp_opt_of(id);
		if (!o)
			return usage_fail(err, p->cmd, "internal option error");
		if (!(o->cmds & B(p->cmd)))
			return usage_fail(err, p->cmd, "option '--%s' does not apply to '%s'",
				       hp_optname(o), hp_names[p->cmd]);
		if (!o->name) {
			seen[id - HP_O_SHARED] = true;
			if (hp_shared(p, id - HP_O_SHARED, optarg, msg, sizeof(msg)))
				return usage_fail(err, p->cmd, "%s", msg);
		} else if (o->val == HP_O_FAULT) {
			if (flt_parse(optarg, &p->fault, msg, sizeof(msg)))
				return usage_fail(err, p->cmd, "%s", msg);
		} else if (hp_apply(p, o, optarg)) {
			return usage_fail(err, p->cmd, "bad value '%s' for option '--%s'",
				       optarg ? optarg : "", o->name);
		}
		p->topo_set |= id == HP_O_TOPO;
	}
}

int hp_parse(struct hp_plan *p, int argc, char **argv, FILE *err)
{
	bool seen[OPT_N] = { 0 };
	int c;

	hp_defaults(p);
	if (argc < 2) {
		usage_usage(err);
		return -1;
	}
	if (!usage_top(argv[1], stdout))
		return 1;
	for (c = 0; c < HP_NCMD; c++)
		if (!strcmp(argv[1], hp_names[c]))
			break;
	if (c == HP_NCMD) {
		fprintf(err, "rdmacap: unknown command '%s'\n", argv[1]);
		usage_usage(err);
		return -1;
	}
	p->cmd = c;
	p->cmd_name = hp_names[c];
	c = hp_options(p, argc, argv, seen, err);
	if (c)
		return c;
	/* positional arguments (after getopt moved them last): only report takes files */
	for (int i = optind + 1; i < argc; i++) {
		if (p->cmd != HP_REPORT)
			return usage_fail(err, p->cmd, "unexpected argument '%s'", argv[i]);
		if (p->nfiles == HP_MAX_FILES)
			return usage_fail(err, p->cmd, "too many files (max %d)", HP_MAX_FILES);
		p->files[p->nfiles++] = argv[i];
	}
	if (p->cmd == HP_REPORT && !p->nfiles && !p->figures)
		return usage_fail(err, p->cmd, "no result file given");
	if ((LOAD & B(p->cmd)) && !p->npoints &&
	    hp_parse_list(p->cmd == HP_RAMP ? hp_ramp_clients : hp_opt_of(HP_O_CLIENTS)->def,
			  p->clients, HP_MAX_POINTS, &p->npoints))
		abort();	/* the table's own default */
	return clicheck_plan(p, seen, err);
}
