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

#include "agents/opts.h"

enum {
	O_ROLE = 256, O_TRANSPORT, O_ADDR, O_PORT, O_PORTS, O_SIZE, O_TIMEOUT,
	O_MODEL, O_SRV_THREADS, O_BACKLOG,
	O_CLIENTS, O_FIRST_ID, O_MSGS, O_THINK, O_STAGGER, O_WORKERS, O_BIND,
	O_CM, O_DEV, O_CQ, O_OP, O_SRQ, O_OOB_SESSION, O_TLS_CA, O_TLS_CERT, O_TLS_KEY,
	O_HELP,
};

static const struct option ag_longopts[] = {
	{ "role", required_argument, NULL, O_ROLE },
	{ "transport", required_argument, NULL, O_TRANSPORT },
	{ "addr", required_argument, NULL, O_ADDR },
	{ "port", required_argument, NULL, O_PORT },
	{ "ports", required_argument, NULL, O_PORTS },
	{ "size", required_argument, NULL, O_SIZE },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "server-model", required_argument, NULL, O_MODEL },
	{ "server-threads", required_argument, NULL, O_SRV_THREADS },
	{ "backlog", required_argument, NULL, O_BACKLOG },
	{ "clients", required_argument, NULL, O_CLIENTS },
	{ "first-id", required_argument, NULL, O_FIRST_ID },
	{ "msgs", required_argument, NULL, O_MSGS },
	{ "think-ms", required_argument, NULL, O_THINK },
	{ "stagger-ms", required_argument, NULL, O_STAGGER },
	{ "workers", required_argument, NULL, O_WORKERS },
	{ "bind", required_argument, NULL, O_BIND },
	{ "cm", required_argument, NULL, O_CM },
	{ "dev", required_argument, NULL, O_DEV },
	{ "cq", required_argument, NULL, O_CQ },
	{ "op", required_argument, NULL, O_OP },
	{ "srq", no_argument, NULL, O_SRQ },
	{ "oob-session", required_argument, NULL, O_OOB_SESSION },
	{ "tls-ca", required_argument, NULL, O_TLS_CA },
	{ "tls-cert", required_argument, NULL, O_TLS_CERT },
	{ "tls-key", required_argument, NULL, O_TLS_KEY },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

/* options that only make sense for one role; giving them to the other is an error */
static const int ag_server_only[] = { O_MODEL, O_SRV_THREADS, O_BACKLOG };
static const int ag_client_only[] = { O_CLIENTS, O_FIRST_ID, O_MSGS, O_THINK,
				      O_STAGGER, O_WORKERS, O_BIND };
static const int ag_rc_only[] = { O_CM, O_DEV, O_CQ, O_OP, O_SRQ, O_OOB_SESSION,
				  O_TLS_CA, O_TLS_CERT, O_TLS_KEY };

void ag_usage(FILE *f)
{
	fprintf(f,
		"usage: rdmacap-agent --role server|client --transport tcp|rc [options]\n"
		"  --addr A            server: listen address; client: server address (IPv4, default 127.0.0.1)\n"
		"  --port P            first port (default %u)\n"
		"  --ports K           server listens on P..P+K-1; client id uses P + id %% K (default 1)\n"
		"  --size B            message bytes, 1..%u (default %u)\n"
		"  --timeout S         deadline per phase in seconds (default %u)\n"
		" server:\n"
		"  --server-model M    event (epoll, default) or thread (thread per client)\n"
		"  --server-threads T  event loops (default 1)\n"
		"  --backlog N         listen backlog (default %u)\n"
		" client:\n"
		"  --clients N         connections of this agent (default 1)\n"
		"  --first-id I        id of the first connection (default 0)\n"
		"  --msgs M            round trips per connection (default %u)\n"
		"  --think-ms T        delay between the messages of one connection\n"
		"  --stagger-ms D      delay between successive connect starts\n"
		"  --workers W         round trips in flight across all connections (0 = all)\n"
		"  --bind A            source address\n"
		" --transport rc:\n"
		"  --cm C              oob-tls (QPs exchanged over TLS 1.3, default) or rdmacm\n"
		"  --dev NAME          RDMA device (default: the one holding the local address)\n"
		"  --cq M              per-conn (send and recv CQ per QP, default) or shared\n"
		"  --srq               one shared receive queue per agent\n"
		"  --op O              send (SEND/RECV, default) or write (RDMA WRITE with immediate)\n"
		"  --oob-session S     per-agent (one TLS session carries all, default) or per-conn\n"
		"  --tls-ca F --tls-cert F --tls-key F   PEM files, required for oob-tls\n"
		"  --help\n",
		AG_DEF_PORT, AG_MAX_SIZE, AG_DEF_SIZE, AG_DEF_TIMEOUT, AG_DEF_BACKLOG,
		AG_DEF_MSGS);
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

/* Decimal only; rejects signs, blanks, trailing junk and values out of [lo, hi]. */
static int ag_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int ag_ipv4(const char *s, struct in_addr *a, char *str)
{
	if (inet_pton(AF_INET, s, a) != 1)
		return -1;
	/* canonical form, so records and logs never echo user text */
	if (!inet_ntop(AF_INET, a, str, INET_ADDRSTRLEN))
		return -1;
	return 0;
}

static const char *ag_optname(int val)
{
	const struct option *lo;

	for (lo = ag_longopts; lo->name; lo++)
		if (lo->val == val)
			return lo->name;
	return "?";
}

static void ag_defaults(struct ag_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->port = AG_DEF_PORT;
	o->ports = 1;
	o->size = AG_DEF_SIZE;
	o->timeout_s = AG_DEF_TIMEOUT;
	o->model = AG_MODEL_EVENT;
	o->server_threads = 1;
	o->backlog = AG_DEF_BACKLOG;
	o->clients = 1;
	o->msgs = AG_DEF_MSGS;
	o->addr.s_addr = htonl(INADDR_LOOPBACK);
	strcpy(o->addr_str, "127.0.0.1");
}

static int ag_check_role(const struct ag_opts *o, const uint8_t *seen,
			 char *err, size_t errlen)
{
	const int *bad = o->role == AG_ROLE_SERVER ? ag_client_only : ag_server_only;
	size_t n = o->role == AG_ROLE_SERVER ?
		sizeof(ag_client_only) / sizeof(int) : sizeof(ag_server_only) / sizeof(int);
	size_t i;

	for (i = 0; i < n; i++)
		if (seen[bad[i] - O_ROLE])
			return ag_err(err, errlen, "--%s is not an option of --role %s",
				      ag_optname(bad[i]),
				      o->role == AG_ROLE_SERVER ? "server" : "client");
	return 0;
}

static int ag_check_rc(const struct ag_opts *o, const uint8_t *seen,
		       char *err, size_t errlen)
{
	size_t i;

	if (o->transport != AG_TR_RC) {
		for (i = 0; i < sizeof(ag_rc_only) / sizeof(int); i++)
			if (seen[ag_rc_only[i] - O_ROLE])
				return ag_err(err, errlen, "--%s is an option of --transport rc",
					      ag_optname(ag_rc_only[i]));
		return 0;
	}
	if (o->cm == AG_CM_OOB_TLS && (!o->tls_ca || !o->tls_cert || !o->tls_key))
		return ag_err(err, errlen,
			      "--cm oob-tls needs --tls-ca, --tls-cert and --tls-key");
	return 0;
}

static int ag_one(struct ag_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	uint32_t *u = NULL, lo = 0, hi = UINT32_MAX;

	switch (c) {
	case O_ROLE:
		if (!strcmp(arg, "server"))
			o->role = AG_ROLE_SERVER;
		else if (!strcmp(arg, "client"))
			o->role = AG_ROLE_CLIENT;
		else
			goto bad;
		return 0;
	case O_TRANSPORT:
		if (!strcmp(arg, "tcp"))
			o->transport = AG_TR_TCP;
		else if (!strcmp(arg, "rc"))
			o->transport = AG_TR_RC;
		else
			goto bad;
		return 0;
	case O_MODEL:
		if (!strcmp(arg, "event"))
			o->model = AG_MODEL_EVENT;
		else if (!strcmp(arg, "thread"))
			o->model = AG_MODEL_THREAD;
		else
			goto bad;
		return 0;
	case O_ADDR:
		if (ag_ipv4(arg, &o->addr, o->addr_str))
			goto bad;
		return 0;
	case O_BIND:
		if (ag_ipv4(arg, &o->bind, o->bind_str))
			goto bad;
		o->has_bind = true;
		return 0;
	case O_CM:
		if (!strcmp(arg, "oob-tls"))
			o->cm = AG_CM_OOB_TLS;
		else if (!strcmp(arg, "rdmacm"))
			o->cm = AG_CM_RDMACM;
		else
			goto bad;
		return 0;
	case O_CQ:
		if (!strcmp(arg, "per-conn"))
			o->cq = AG_CQ_PER_CONN;
		else if (!strcmp(arg, "shared"))
			o->cq = AG_CQ_SHARED;
		else
			goto bad;
		return 0;
	case O_OP:
		if (!strcmp(arg, "send"))
			o->op = AG_OP_SEND;
		else if (!strcmp(arg, "write"))
			o->op = AG_OP_WRITE;
		else
			goto bad;
		return 0;
	case O_OOB_SESSION:
		if (!strcmp(arg, "per-agent"))
			o->oob_session = AG_OOB_PER_AGENT;
		else if (!strcmp(arg, "per-conn"))
			o->oob_session = AG_OOB_PER_CONN;
		else
			goto bad;
		return 0;
	case O_SRQ:
		o->srq = true;
		return 0;
	case O_DEV:
		/* IB_DEVICE_NAME_MAX is 64 */
		if (!*arg || strlen(arg) > 63)
			goto bad;
		o->dev = arg;
		return 0;
	case O_TLS_CA:
	case O_TLS_CERT:
	case O_TLS_KEY:
		if (!*arg)
			goto bad;
		*(c == O_TLS_CA ? &o->tls_ca : c == O_TLS_CERT ? &o->tls_cert : &o->tls_key) = arg;
		return 0;
	case O_PORT: u = &o->port; lo = 1; hi = 65535; break;
	case O_PORTS: u = &o->ports; lo = 1; hi = 65535; break;
	case O_SIZE: u = &o->size; lo = 1; hi = AG_MAX_SIZE; break;
	case O_TIMEOUT: u = &o->timeout_s; lo = 1; hi = 86400; break;
	case O_SRV_THREADS: u = &o->server_threads; lo = 1; hi = AG_MAX_THREADS; break;
	case O_BACKLOG: u = &o->backlog; lo = 1; hi = INT_MAX; break;
	case O_CLIENTS: u = &o->clients; lo = 1; hi = AG_MAX_CLIENTS; break;
	case O_FIRST_ID: u = &o->first_id; break;
	case O_MSGS: u = &o->msgs; hi = 1u << 30; break;
	case O_THINK: u = &o->think_ms; hi = 3600000; break;
	case O_STAGGER: u = &o->stagger_ms; hi = 3600000; break;
	case O_WORKERS: u = &o->workers; hi = AG_MAX_CLIENTS; break;
	default:
		return ag_err(err, errlen, "internal: option %d", c);
	}
	if (ag_u32(arg, lo, hi, u))
		return ag_err(err, errlen, "invalid value '%s' for --%s (want %u..%u)",
			      arg, ag_optname(c), lo, hi);
	return 0;
bad:
	return ag_err(err, errlen, "invalid value '%s' for --%s", arg, ag_optname(c));
}

int ag_opts_parse(struct ag_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	uint8_t seen[O_HELP - O_ROLE + 1] = { 0 };
	int c;

	ag_defaults(o);
	/* optind = 0 makes glibc reinitialise, so the parser can run more than once */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", ag_longopts, NULL)) != -1) {
		switch (c) {
		case O_HELP:
			return 1;
		case ':':
			return ag_err(err, errlen, "option '%s' requires a value",
				      argv[optind - 1]);
		case '?':
			if (optopt)
				return ag_err(err, errlen, "unrecognized option '-%c'", optopt);
			return ag_err(err, errlen, "unrecognized option '%s'",
				      argv[optind - 1]);
		default:
			if (c < O_ROLE || c > O_HELP)
				return ag_err(err, errlen, "unrecognized option '%s'",
					      argv[optind - 1]);
			seen[c - O_ROLE] = 1;
			if (ag_one(o, c, optarg, err, errlen))
				return -1;
		}
	}
	if (optind < argc)
		return ag_err(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (o->role == AG_ROLE_NONE)
		return ag_err(err, errlen, "--role is required");
	if (o->transport == AG_TR_NONE)
		return ag_err(err, errlen, "--transport is required");
	if (ag_check_role(o, seen, err, errlen))
		return -1;
	if (ag_check_rc(o, seen, err, errlen))
		return -1;
	if (o->port + o->ports - 1 > 65535)
		return ag_err(err, errlen, "--port %u with --ports %u goes past 65535",
			      o->port, o->ports);
	if ((uint64_t)o->first_id + o->clients - 1 > UINT32_MAX)
		return ag_err(err, errlen, "--first-id %u with --clients %u overflows the id space",
			      o->first_id, o->clients);
	return 0;
}
