// SPDX-License-Identifier: MIT
/*
 * Command line of rdmacap-agent. Every value is range-checked here so the
 * transports can trust struct ag_opts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/opts.h"
#include "common/deadline.h"
#include "common/fiopt.h"
#include "common/nvmfname.h"
#include "common/nvopt.h"
#include "common/srpname.h"
#include "rdma/dev.h"

/* agent-only options; the shared ones are O_SHARED + enum opt_id */
enum {
	O_ROLE = 256, O_ADDR, O_PORT, O_BACKLOG, O_POOL, O_FIRST_ID, O_BIND, O_KEEPIDLE, O_CPUS,
	O_NQN, O_SLOTS, O_RUN, O_HELP,
	O_SHARED,
	O_END = O_SHARED + OPT_N,
};

static const struct option ag_own[] = {
	{ "role", required_argument, NULL, O_ROLE },
	{ "addr", required_argument, NULL, O_ADDR },
	{ "port", required_argument, NULL, O_PORT },
	{ "backlog", required_argument, NULL, O_BACKLOG },
	{ "pool", required_argument, NULL, O_POOL },
	{ "first-id", required_argument, NULL, O_FIRST_ID },
	{ "bind", required_argument, NULL, O_BIND },
	{ "keepidle", required_argument, NULL, O_KEEPIDLE },
	{ OPT_CPUS, required_argument, NULL, O_CPUS },
	{ "nqn", required_argument, NULL, O_NQN },
	{ "slots", required_argument, NULL, O_SLOTS },
	{ "run", required_argument, NULL, O_RUN },
	{ "help", no_argument, NULL, O_HELP },
};
#define AG_NOWN (sizeof(ag_own) / sizeof(ag_own[0]))

/* what the option table says about the role of each agent-only option */
static unsigned ag_own_flags(int c)
{
	switch (c) {
	case O_BACKLOG: return OPT_F_SERVER;
	case O_POOL: return OPT_F_SERVER | OPT_F_RC;
	case O_CPUS: return OPT_F_RC;
	case O_FIRST_ID: case O_BIND: return OPT_F_CLIENT;
	case O_NQN: return OPT_F_NVMF;
	case O_SLOTS: return OPT_F_NVMF | OPT_F_SRP | OPT_F_SERVER;
	case O_RUN: return OPT_F_SRP;
	}
	return 0;
}

/* the shared options of one group; -1 when f fails */
static int ag_usage_group(FILE *f, const char *title, unsigned mask, unsigned want)
{
	if (fputs(title, f) == EOF)
		return -1;
	for (int i = 0; i < OPT_N; i++) {
		/* required here, and named in the usage line; rdmacap's own not ours */
		if ((opt_defs[i].flags & mask) != want || i == OPT_TRANSPORT ||
		    (opt_defs[i].flags & OPT_F_ORCH))
			continue;
		if (opt_help_line(f, i, NULL))
			return -1;
	}
	return 0;
}

int ag_usage(FILE *f)
{
	const unsigned roles = OPT_F_SERVER | OPT_F_CLIENT | OPT_F_RC | OPT_F_NVMF | OPT_F_SRP;
	char port[16], keep[16], backlog[16];

	snprintf(port, sizeof(port), "%u", OPT_DEF_PORT);
	snprintf(keep, sizeof(keep), "%u", DL_TCP_KEEPIDLE_S);
	snprintf(backlog, sizeof(backlog), "%u", AG_DEF_BACKLOG);
	if (fprintf(f, "Usage: rdmacap-agent --role server|client --transport "
		    "tcp|rc|ud|uc|nvmf|fi-msg|fi-rdm|srp [options]\n") < 0 ||
	    opt_help_row(f, "addr", "A", "server: listen address; client: server address "
			 "(IPv4 or IPv6)", NULL, "127.0.0.1") ||
	    opt_help_row(f, "port", "P", "first port; clients use P + id % ports", NULL, port) ||
	    opt_help_row(f, "keepidle", "S", "tcp: seconds idle before a keepalive probe", NULL,
			 keep) ||
	    ag_usage_group(f, "", roles, 0) ||
	    ag_usage_group(f, " server:\n", roles, OPT_F_SERVER) ||
	    opt_help_row(f, "backlog", "N", "listen backlog", NULL, backlog) ||
	    opt_help_row(f, "pool", "N", "rc: N requests to come, endpoints made ahead of them",
			 NULL, "0") ||
	    ag_usage_group(f, " client:\n", roles, OPT_F_CLIENT) ||
	    opt_help_row(f, "first-id", "I", "id of the first connection", NULL, "0") ||
	    opt_help_row(f, "bind", "A", "source address, of --addr's family", NULL, NULL) ||
	    ag_usage_group(f, " --transport nvmf:\n", OPT_F_NVMF | OPT_F_RC, OPT_F_NVMF) ||
	    opt_help_row(f, "nqn", "NQN", "the target subsystem's NQN, of rdmacap's prefix "
			 "(required)", NULL, NULL) ||
	    opt_help_row(f, "slots", "N", "server: LBA ranges of --size the disk holds, one "
			 "per client", NULL, NULL) ||
	    ag_usage_group(f, " --transport srp:\n", OPT_F_SRP | OPT_F_RC, OPT_F_SRP) ||
	    opt_help_row(f, "run", "RUN", "the run (4 hex digits) the target's objects and the "
			 "clients' initiator_ext are named after (required)", NULL, NULL) ||
	    ag_usage_group(f, " rdma:\n", OPT_F_RC, OPT_F_RC) ||
	    ag_usage_group(f, " --transport fi-msg, fi-rdm:\n", OPT_F_FI_ONLY, OPT_F_FI_ONLY) ||
	    opt_help_row(f, OPT_CPUS, "LIST", "--poll busy|adaptive: a CPU per spinning loop, in "
			 "loop order (a client 1, a server --server-threads; thread model: its "
			 "sessions' threads take them in turn)", NULL, NULL) ||
	    fprintf(f, "  (--cm oob-tls needs --tls-ca, --tls-cert and --tls-key)\n") < 0 ||
	    opt_help_row(f, "help", NULL, "this help", NULL, NULL))
		return -1;
	return 0;
}

static int ag_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ag_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int ag_addr(const char *s, struct ipa *a, char *str)
{
	if (ipa_parse(a, s))
		return -1;
	/* canonical form, so records and logs never echo user text */
	ipa_str(a, str, IPA_STRLEN);
	return 0;
}

static const char *ag_optname(int val)
{
	if (val >= O_SHARED && val < O_END)
		return opt_defs[val - O_SHARED].name;
	for (size_t i = 0; i < AG_NOWN; i++)
		if (ag_own[i].val == val)
			return ag_own[i].name;
	return "?";
}

static void ag_defaults(struct ag_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->transport = OPT_TR_NONE;
	o->port = OPT_DEF_PORT;
	o->ports = (uint32_t)opt_defs[OPT_PORTS].def;
	o->size = (uint32_t)opt_defs[OPT_SIZE].def;
	o->timeout_s = (uint32_t)opt_defs[OPT_TIMEOUT].def;
	o->model = (enum opt_model)opt_defs[OPT_SERVER_MODEL].def;
	o->server_threads = (uint32_t)opt_defs[OPT_SERVER_THREADS].def;
	o->backlog = AG_DEF_BACKLOG;
	o->keepidle_s = DL_TCP_KEEPIDLE_S;
	o->clients = (uint32_t)opt_defs[OPT_CLIENTS].def;
	o->msgs = (uint32_t)opt_defs[OPT_MSGS].def;
	o->think_ms = (uint32_t)opt_defs[OPT_THINK_MS].def;
	o->stagger_ms = (uint32_t)opt_defs[OPT_STAGGER_MS].def;
	o->workers = (uint32_t)opt_defs[OPT_WORKERS].def;
	o->cm = (enum opt_cm)opt_defs[OPT_CM].def;
	o->cm_order = (enum opt_cm_order)opt_defs[OPT_CM_ORDER].def;
	o->cq = (enum opt_cq)opt_defs[OPT_CQ].def;
	o->mr = (enum opt_mr)opt_defs[OPT_MR].def;
	o->op = (enum opt_op)opt_defs[OPT_OP].def;
	o->oob_session = (enum opt_oob_session)opt_defs[OPT_OOB_SESSION].def;
	o->poll = (enum opt_poll)opt_defs[OPT_POLL].def;
	o->gid_index = -1;
	o->sl = (uint8_t)opt_defs[OPT_SL].def;
	o->tclass = (uint8_t)opt_defs[OPT_TCLASS].def;
	o->ah = (enum opt_ah)opt_defs[OPT_AH].def;
	o->ah_max = (uint32_t)opt_defs[OPT_AH_MAX].def;
	o->nvme_io_queues = (uint32_t)opt_defs[OPT_NVME_IO_QUEUES].def;
	o->nvme_queue_size = (uint32_t)opt_defs[OPT_NVME_QUEUE_SIZE].def;
	o->slots = 1;
	ipa_loopback(&o->addr, AF_INET);
	ipa_str(&o->addr, o->addr_str, sizeof(o->addr_str));
}

static unsigned ag_flags(int c)
{
	return c >= O_SHARED && c < O_END ? opt_defs[c - O_SHARED].flags : ag_own_flags(c);
}

/* role rules and the agent-only rc option; the shared rules are opt_rules() */
static int ag_check(const struct ag_opts *o, const uint8_t *seen, char *err, size_t errlen)
{
	unsigned other = o->role == AG_ROLE_SERVER ? OPT_F_CLIENT : OPT_F_SERVER;
	bool shared[OPT_N];

	for (int c = O_ROLE; c < O_END; c++) {
		if (!seen[c - O_ROLE])
			continue;
		if (ag_flags(c) & other)
			return ag_err(err, errlen, "--%s is not an option of --role %s",
				      ag_optname(c), o->role == AG_ROLE_SERVER ? "server" : "client");
		/* the fi transports' refusals name their reasons (fiopt_rules) */
		if (opt_tr_fi(o->transport) && (c >= O_SHARED || c == O_CPUS))
			continue;
		if (!opt_tr_takes(ag_flags(c), o->transport))
			return opt_tr_refuse(ag_optname(c), ag_flags(c), err, errlen);
	}
	for (int i = 0; i < OPT_N; i++)
		shared[i] = seen[O_SHARED + i - O_ROLE];
	if (nvopt_rules(o->transport, shared, err, errlen) ||
	    opt_rules(o->transport, shared, err, errlen) ||
	    fiopt_rules(o->transport, shared, o->model, o->server_threads, o->poll, err, errlen) ||
	    opt_cm_rules(o->transport, o->cm, shared, err, errlen) ||
	    opt_ud_rules(o->transport, o->cm, o->size, err, errlen) ||
	    opt_uc_rules(o->transport, o->op, err, errlen) ||
	    opt_thread_rules(o->transport, o->model, o->cq, o->srq, o->cm, err, errlen))
		return -1;
	if (o->transport == OPT_TR_NVMF && !o->nqn)
		return ag_err(err, errlen, "--transport nvmf needs --nqn");
	if (o->transport == OPT_TR_SRP && (!o->run || !o->dev))
		return ag_err(err, errlen, "--transport srp needs --run and --device (ib_srp "
			      "logs in through one RDMA port)");
	if (opt_tr_fi(o->transport) && !o->fi_provider)
		return ag_err(err, errlen, "--transport %s needs --fi-provider (rdmacap passes "
			      "the one it checked)", opt_word(OPT_TRANSPORT, o->transport));
	if ((opt_tr_connected(o->transport) || o->transport == OPT_TR_UD) &&
	    o->cm == OPT_CM_OOB_TLS && (!o->tls_ca || !o->tls_cert || !o->tls_key))
		return ag_err(err, errlen,
			      "--cm oob-tls needs --tls-ca, --tls-cert and --tls-key");
	if (o->ncpus && o->poll == OPT_POLL_EVENT)
		return ag_err(err, errlen, "--%s is for --poll busy|adaptive (a loop that sleeps "
			      "needs no CPU of its own)", OPT_CPUS);
	if (o->ncpus && o->model == OPT_MODEL_EVENT &&
	    o->ncpus != (o->role == AG_ROLE_SERVER ? o->server_threads : 1))
		return ag_err(err, errlen, "--%s names %u CPUs for %u spinning loops", OPT_CPUS,
			      o->ncpus, o->role == AG_ROLE_SERVER ? o->server_threads : 1);
	if (o->has_bind && o->bind.family != o->addr.family)
		return ag_err(err, errlen, "--bind %s is not of --addr %s's family", o->bind_str,
			      o->addr_str);
	return 0;
}

/* a shared option: parsed by the table, stored in its field */
static int ag_shared(struct ag_opts *o, enum opt_id id, const char *arg, char *err,
		     size_t errlen)
{
	long long v;

	if (opt_parse(id, arg, &v, err, errlen))
		return -1;
	switch (id) {
	case OPT_TRANSPORT: o->transport = (enum opt_transport)v; break;
	case OPT_CM: o->cm = (enum opt_cm)v; break;
	case OPT_CM_ORDER: o->cm_order = (enum opt_cm_order)v; break;
	case OPT_SERVER_MODEL: o->model = (enum opt_model)v; break;
	case OPT_CQ: o->cq = (enum opt_cq)v; break;
	case OPT_MR: o->mr = (enum opt_mr)v; break;
	case OPT_OP: o->op = (enum opt_op)v; break;
	case OPT_OOB_SESSION: o->oob_session = (enum opt_oob_session)v; break;
	case OPT_SRQ: o->srq = true; break;
	case OPT_RX_DEPTH: o->rx_depth = (uint32_t)v; break;
	case OPT_POLL: o->poll = (enum opt_poll)v; break;
	case OPT_AH: o->ah = (enum opt_ah)v; break;
	case OPT_AH_MAX: o->ah_max = (uint32_t)v; break;
	case OPT_SIZE: o->size = (uint32_t)v; break;
	case OPT_MSGS: o->msgs = (uint32_t)v; break;
	case OPT_TIMEOUT: o->timeout_s = (uint32_t)v; break;
	case OPT_SERVER_THREADS: o->server_threads = (uint32_t)v; break;
	case OPT_WORKERS: o->workers = (uint32_t)v; break;
	case OPT_QP_SHARE: o->qp_share = (uint32_t)v; break;
	case OPT_PORTS: o->ports = (uint32_t)v; break;
	case OPT_THINK_MS: o->think_ms = (uint32_t)v; break;
	case OPT_STAGGER_MS: o->stagger_ms = (uint32_t)v; break;
	case OPT_CLIENTS: o->clients = (uint32_t)v; break;
	case OPT_TLS_CA: o->tls_ca = arg; break;
	case OPT_TLS_CERT: o->tls_cert = arg; break;
	case OPT_TLS_KEY: o->tls_key = arg; break;
	case OPT_FI_PROVIDER: o->fi_provider = arg; break;
	case OPT_DEVICE:
		if (opt_device(arg, &o->device))
			return ag_err(err, errlen, "internal: --device %s", arg);
		o->dev = o->device.name;
		break;
	case OPT_GID_INDEX: o->gid_index = (int)v; break;
	case OPT_SL: o->sl = (uint8_t)v; break;
	case OPT_TCLASS: o->tclass = (uint8_t)v; break;
	case OPT_NVME_IO_QUEUES: o->nvme_io_queues = (uint32_t)v; break;
	case OPT_NVME_QUEUE_SIZE: o->nvme_queue_size = (uint32_t)v; break;
	case OPT_MEM_FLOOR: /* OPT_F_ORCH: not in our getopt table */
	case OPT_FAMILY:
	case OPT_N: return ag_err(err, errlen, "internal: option %d", id);
	}
	return 0;
}

static int ag_one(struct ag_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	long long v;

	if (c >= O_SHARED && c < O_END)
		return ag_shared(o, c - O_SHARED, arg, err, errlen);
	switch (c) {
	case O_ROLE:
		if (!strcmp(arg, "server"))
			o->role = AG_ROLE_SERVER;
		else if (!strcmp(arg, "client"))
			o->role = AG_ROLE_CLIENT;
		else
			goto bad;
		return 0;
	case O_ADDR:
		if (ag_addr(arg, &o->addr, o->addr_str))
			goto bad;
		return 0;
	case O_BIND:
		if (ag_addr(arg, &o->bind, o->bind_str))
			goto bad;
		o->has_bind = true;
		return 0;
	case O_PORT:
		if (opt_num(arg, 1, 65535, &v))
			goto bad;
		o->port = (uint32_t)v;
		return 0;
	case O_BACKLOG:
		if (opt_num(arg, 1, INT_MAX, &v))
			goto bad;
		o->backlog = (uint32_t)v;
		return 0;
	case O_POOL:
		/* one endpoint per client at most: --clients' limit */
		if (opt_num(arg, 0, opt_defs[OPT_CLIENTS].max, &v))
			goto bad;
		o->pool = (uint32_t)v;
		return 0;
	case O_CPUS: {
		int n = opt_cpus(arg, o->cpus, OPT_CPUS_MAX);

		if (n < 0)
			goto bad;
		o->ncpus = (uint32_t)n;
		return 0;
	}
	case O_KEEPIDLE:
		if (opt_num(arg, 1, DL_TCP_KEEPIDLE_MAX_S, &v))
			goto bad;
		o->keepidle_s = (uint32_t)v;
		return 0;
	case O_NQN:
		if (!nvmfn_nqn_ours(arg))
			goto bad;
		o->nqn = arg;
		return 0;
	case O_RUN:
		if (strlen(arg) != 4 || strspn(arg, "0123456789abcdef") != 4)
			goto bad;
		o->run = arg;
		return 0;
	case O_SLOTS:
		if (opt_num(arg, 1, opt_defs[OPT_CLIENTS].max, &v))
			goto bad;
		o->slots = (uint32_t)v;
		return 0;
	case O_FIRST_ID:
		if (opt_num(arg, 0, UINT32_MAX, &v))
			goto bad;
		o->first_id = (uint32_t)v;
		return 0;
	}
	return ag_err(err, errlen, "internal: option %d", c);
bad:
	return ag_err(err, errlen, "invalid value '%s' for --%s", arg, ag_optname(c));
}

/* getopt's words for a rejected option: no value wanted, value missing, unknown */
static int ag_getopt_err(int c, char **argv, char *err, size_t errlen)
{
	const char *w = argv[optind - 1];

	if (c == ':')
		return ag_err(err, errlen, "option '%s' requires a value", w);
	if (optopt >= O_ROLE && optopt < O_END)
		return ag_err(err, errlen, "option '--%s' takes no value", ag_optname(optopt));
	if (optopt)
		return ag_err(err, errlen, "unrecognized option '-%c'", optopt);
	return ag_err(err, errlen, "unrecognized option '%s'", w);
}

int ag_opts_parse(struct ag_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	struct option lo[AG_NOWN + OPT_N + 1];
	uint8_t seen[O_END - O_ROLE] = { 0 };
	size_t n = AG_NOWN;
	int c;

	ag_defaults(o);
	memcpy(lo, ag_own, sizeof(ag_own));
	for (int i = 0; i < OPT_N; i++)
		if (!(opt_defs[i].flags & OPT_F_ORCH))
			lo[n++] = (struct option){ opt_defs[i].name,
				opt_defs[i].kind == OPT_FLAG ? no_argument : required_argument,
				NULL, O_SHARED + i };
	memset(&lo[n], 0, sizeof(lo[0]));
	/* optind = 0 makes glibc reinitialise, so the parser can run more than once */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		if (c == O_HELP)
			return 1;
		if (c == ':' || c == '?' || c < O_ROLE || c >= O_END)
			return ag_getopt_err(c, argv, err, errlen);
		seen[c - O_ROLE] = 1;
		if (ag_one(o, c, optarg, err, errlen))
			return -1;
	}
	if (optind < argc)
		return ag_err(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (o->role == AG_ROLE_NONE)
		return ag_err(err, errlen, "--role is required");
	if (o->transport == OPT_TR_NONE)
		return ag_err(err, errlen, "--transport is required");
	if (ag_check(o, seen, err, errlen))
		return -1;
	if (o->port + o->ports - 1 > 65535)
		return ag_err(err, errlen, "--port %u with --ports %u goes past 65535",
			      o->port, o->ports);
	if ((uint64_t)o->first_id + o->clients - 1 > UINT32_MAX)
		return ag_err(err, errlen, "--first-id %u with --clients %u overflows the id space",
			      o->first_id, o->clients);
	return 0;
}

int ag_opts_local(const struct ag_opts *o, struct ipa *local)
{
	struct sockaddr_storage dst, src;
	struct rdev_err e;

	if (o->has_bind) {
		*local = o->bind;
		return 0;
	}
	ipa_to_sa(&o->addr, 0, &dst);
	if (rdev_route_src((struct sockaddr *)&dst, &src, &e) ||
	    ipa_from_sa(local, (struct sockaddr *)&src, NULL)) {
		ag_fatal(e.call, e.obj, e.err);
		return -1;
	}
	return 0;
}

struct rport_path ag_opts_path(const struct ag_opts *o, int gidx)
{
	return (struct rport_path){ .sl = o->sl, .tclass = o->tclass, .gid_index = gidx,
				    .grh = o->gid_index >= 0 };
}
