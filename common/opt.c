// SPDX-License-Identifier: MIT
/*
 * The option table both programs parse through (see opt.h). One row per
 * option: its word, limits, default and one line of meaning.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/opt.h"

static const char *const opt_transports[OPT_TR_N] = {
	[OPT_TR_TCP] = "tcp", [OPT_TR_RC] = "rc", [OPT_TR_UD] = "ud",
	[OPT_TR_UC] = "uc", [OPT_TR_NVMF] = "nvmf", [OPT_TR_FI_MSG] = "fi-msg",
	[OPT_TR_FI_RDM] = "fi-rdm", [OPT_TR_SRP] = "srp",
};
static const char *const opt_cms[OPT_CM_N] = {
	[OPT_CM_OOB_TLS] = "oob-tls", [OPT_CM_RDMACM] = "rdmacm",
};
static const char *const opt_cm_orders[OPT_CM_ORDER_N] = {
	[OPT_CM_ORDER_PIPELINED] = "pipelined", [OPT_CM_ORDER_PHASED] = "phased",
};
static const char *const opt_models[OPT_MODEL_N] = {
	[OPT_MODEL_EVENT] = "event", [OPT_MODEL_THREAD] = "thread",
};
static const char *const opt_cqs[OPT_CQ_N] = {
	[OPT_CQ_PER_CONN] = "per-conn", [OPT_CQ_SHARED] = "shared",
};
static const char *const opt_mrs[OPT_MR_N] = {
	[OPT_MR_PER_CONN] = "per-conn", [OPT_MR_SHARED] = "shared",
};
static const char *const opt_ops[OPT_OP_N] = {
	[OPT_OP_SEND] = "send", [OPT_OP_WRITE] = "write",
	[OPT_OP_READ] = "read", [OPT_OP_ATOMIC] = "atomic",
};
static const char *const opt_oobs[OPT_OOB_N] = {
	[OPT_OOB_PER_AGENT] = "per-agent", [OPT_OOB_PER_CONN] = "per-conn",
};
static const char *const opt_polls[OPT_POLL_N] = {
	[OPT_POLL_EVENT] = "event", [OPT_POLL_BUSY] = "busy", [OPT_POLL_ADAPTIVE] = "adaptive",
};
static const char *const opt_ahs[OPT_AH_N] = {
	[OPT_AH_CACHE] = "cache", [OPT_AH_WC] = "wc", [OPT_AH_LRU] = "lru",
	[OPT_AH_PEER] = "peer",
};
static const char *const opt_families[OPT_FAM_N] = {
	[OPT_FAM_4] = "4", [OPT_FAM_6] = "6",
};

#define W(tab) .kind = OPT_WORD, .words = tab, .nwords = sizeof(tab) / sizeof(tab[0])
#define N(lo, hi, d) .kind = OPT_NUM, .min = lo, .max = hi, .def = d

const struct opt_def opt_defs[OPT_N] = {
	[OPT_TRANSPORT] = { "transport", W(opt_transports), .def = OPT_TR_TCP,
			    .arg = "tcp|rc|ud|uc|nvmf|fi-msg|fi-rdm|srp",
			    .help = "data path: TCP sockets, RDMA reliable connections or datagrams, "
				    "unreliable connections, the kernel's NVMe over RDMA, libfabric "
				    "endpoints, or the kernel's SCSI RDMA Protocol" },
	[OPT_CM] = { "cm", W(opt_cms), .flags = OPT_F_RC | OPT_F_UD, .def = OPT_CM_OOB_TLS,
		     .arg = "oob-tls|rdmacm",
		     .help = "QP exchange over TLS 1.3, or librdmacm",
		     .nofi = "a libfabric endpoint connects through its provider (fi_connect and "
			     "fi_accept; fi-rdm through the AV)" },
	/* rc and uc clients: ud's rdmacm client keeps its own order (agents/ud/ud_client_cm.c) */
	[OPT_CM_ORDER] = { "cm-order", W(opt_cm_orders),
			   .flags = OPT_F_RC | OPT_F_CLIENT | OPT_F_RDMACM,
			   .def = OPT_CM_ORDER_PIPELINED, .arg = "pipelined|phased",
			   .help = "rdma_cm's steps per connection as its events come, or each "
				   "step for all of an agent's connections first (cmtime's order)",
			   .nofi = "a libfabric endpoint connects through its provider (fi_connect "
				   "and fi_accept; fi-rdm through the AV)" },
	[OPT_SERVER_MODEL] = { "server-model", W(opt_models), .flags = OPT_F_SERVER,
			       .def = OPT_MODEL_EVENT, .arg = "event|thread",
			       .help = "epoll event loop, or one thread per client" },
	[OPT_CQ] = { "cq", W(opt_cqs), .flags = OPT_F_RC | OPT_F_FI, .def = OPT_CQ_PER_CONN,
		     .arg = "per-conn|shared",
		     .help = "send and recv CQ per QP (fi: one CQ per endpoint), or one CQ per "
			     "agent (fi-msg: per 1,024 endpoints)" },
	[OPT_MR] = { "mr", W(opt_mrs), .flags = OPT_F_RC, .def = OPT_MR_PER_CONN,
		     .arg = "per-conn|shared",
		     .help = "send and recv MR per QP, or one MR per agent (per 4,096 "
			     "connections), each connection its slice",
		     .nofi = "each endpoint's buffers are one fi_mr_reg of its own" },
	[OPT_OP] = { "op", W(opt_ops), .flags = OPT_F_RC, .def = OPT_OP_SEND,
		     .arg = "send|write|read|atomic",
		     .help = "SEND/RECV, RDMA WRITE with immediate (iWARP: WRITE, then a SEND), RDMA "
			     "READ of the server's "
			     "buffer, or fetch-and-add on its counter",
		     .nofi = "the fi endpoints measure messages (fi_send), not RMA or atomics" },
	[OPT_OOB_SESSION] = { "oob-session", W(opt_oobs), .flags = OPT_F_RC,
			      .def = OPT_OOB_PER_AGENT, .arg = "per-agent|per-conn",
			      .help = "one TLS session per agent, or one per connection",
			      .nofi = "no TLS exchange: the provider connects the endpoints" },
	/* fi-rdm's is ofi_rxm's (agents/fi/fab.c); an fi-msg endpoint has none */
	[OPT_SRQ] = { "srq", OPT_FLAG, .flags = OPT_F_RC | OPT_F_FI_RDM,
		      .help = "one shared receive queue per agent (fi-rdm: ofi_rxm's shared "
			      "receive context under each endpoint)",
		      .nofi = "no shared receive context (fi_srx_context) is made" },
	/* 0: the agent's own (rc.h): RC_RQ per QP, an SRQ that grows with the QPs */
	[OPT_RX_DEPTH] = { "rx-depth", N(0, 1 << 20, 0), .flags = OPT_F_RC, .arg = "N",
			   .help = "receive queue depth per QP, or with --srq the receives the "
				   "SRQ holds (0 = as the QPs need)",
			   .nofi = "the provider sizes an endpoint's receive queue (rx_attr)" },
	[OPT_POLL] = { "poll", W(opt_polls), .flags = OPT_F_RC | OPT_F_FI, .def = OPT_POLL_EVENT,
		       .arg = "event|busy|adaptive",
		       .help = "sleep on the completion channel, spin on the CQs, or spin "
			       "on a CQ whose completions come often, else sleep" },
	[OPT_DEVICE] = { "device", OPT_DEV,
			 .flags = OPT_F_RC | OPT_F_UD | OPT_F_HOST | OPT_F_NVMF | OPT_F_SRP,
			 .arg = "NAME[:PORT]",
			 .def_text = "the one holding the address", .help = "RDMA device and port",
			 .nofi = "the provider picks its domain by the address (fi_getinfo)" },
	/* def below min: "not given", the GID of the address in use (rdma/port.h) */
	[OPT_GID_INDEX] = { "gid-index", N(0, 255, -1), .flags = OPT_F_RC | OPT_F_UD | OPT_F_HOST,
			    .arg = "N", .def_text = "the RoCEv2 GID of the address",
			    .help = "source GID index",
			    .nofi = "the provider picks the GID by the address (fi_getinfo)" },
	/*
	 * The address vector's (rdma/port.h, rport_av): the SL is 4 bits of the
	 * LRH (IB) or the priority a RoCE switch maps it to; the class is the GRH's
	 * 8 bits, so InfiniBand carries it only with a GRH (--gid-index). With --cm
	 * rdmacm, rc and uc connections are addressed by rdma_cm: the class goes in
	 * as the id's type of service, and it picks the SL itself.
	 */
	[OPT_SL] = { "sl", N(0, 15, 0), .flags = OPT_F_RC | OPT_F_UD, .arg = "N",
		     .help = "service level of the address vectors",
		     .nofi = "the provider addresses its endpoints (fi_getinfo)" },
	[OPT_TCLASS] = { "tclass", N(0, 255, 0), .flags = OPT_F_RC | OPT_F_UD, .arg = "N",
			 .help = "GRH traffic class (RoCE; InfiniBand with --gid-index)",
			 .nofi = "the provider addresses its endpoints (fi_getinfo)" },
	[OPT_AH] = { "ah", W(opt_ahs), .flags = OPT_F_UD_ONLY | OPT_F_SERVER, .def = OPT_AH_CACHE,
		     .arg = "cache|wc|lru|peer",
		     .help = "ud server: one address handle per connected client, one per "
			     "reply (from its completion), --ah-max of them, LRU, or one "
			     "per peer GID shared by its clients",
		     .nofi = "the provider holds the peers' addresses (fi-rdm: in the AV)" },
	/* 0: the device's max_ah less UD_AH_SPARE (agents/ud/ud.h) */
	[OPT_AH_MAX] = { "ah-max", N(0, 1 << 24, 0), .flags = OPT_F_UD_ONLY | OPT_F_SERVER,
			 .arg = "N", .help = "ud server, --ah lru: address handles held at most "
					     "(0 = the device's max_ah less a few)",
			 .nofi = "the provider holds the peers' addresses (fi-rdm: in the AV)" },
	[OPT_SIZE] = { "size", N(1, 1 << 20, 64), .arg = "B", .help = "message bytes" },
	[OPT_MSGS] = { "msgs", N(0, 100000000, 10), .flags = OPT_F_CLIENT, .arg = "M",
		       .help = "round trips per connection" },
	[OPT_TIMEOUT] = { "timeout", N(1, 86400, 60), .arg = "SEC",
			  .help = "deadline per phase in seconds" },
	/*
	 * def below min: "automatic", the larger of 64 MiB and 2% of MemTotal, and
	 * above the kernel's watermarks (harness/point/memfloor.c says why); 0: off
	 */
	[OPT_MEM_FLOOR] = { "mem-floor", N(0, 1 << 20, -1), .flags = OPT_F_ORCH, .arg = "MIB",
			    .help = "end a point when MemAvailable falls below this (0 = off; "
				    "this host only: --hosts' remote hosts are not watched)" },
	/* 6: ULA fd7a:222::/64 without DAD (netns/netns.h); host: of the device's GID */
	[OPT_FAMILY] = { "family", W(opt_families), .flags = OPT_F_ORCH, .def = OPT_FAM_4,
			 .arg = "4|6",
			 .help = "IPv4 or IPv6 addresses on the topology's links (host: the "
				 "GID's family, as --server-addr's)" },
	[OPT_SERVER_THREADS] = { "server-threads", N(1, 64, 1), .flags = OPT_F_SERVER,
				 .arg = "T", .help = "event loops of a server process, a thread "
						     "each (tcp, rc, uc, ud)" },
	[OPT_WORKERS] = { "workers", N(0, 1 << 20, 0), .flags = OPT_F_CLIENT, .arg = "W",
			  .help = "round trips in flight per agent (0 = all; ud: what "
				  "fits the server's receive slots)" },
	[OPT_QP_SHARE] = { "qp-share", N(0, 1 << 20, 0), .flags = OPT_F_RC | OPT_F_CLIENT,
			   .arg = "K", .help = "QPs an agent's clients are multiplexed over "
					       "(0 = one QP per client)",
			   .nofi = "each client is an endpoint of its own (fi-rdm: ofi_rxm "
				   "multiplexes beneath it)" },
	[OPT_PORTS] = { "ports", N(1, 64, 1), .arg = "K",
			.help = "server ports per server process" },
	[OPT_THINK_MS] = { "think-ms", N(0, 600000, 0), .flags = OPT_F_CLIENT, .arg = "T",
			   .help = "delay between the messages of one connection" },
	[OPT_STAGGER_MS] = { "stagger-ms", N(0, 600000, 0), .flags = OPT_F_CLIENT, .arg = "D",
			     .help = "delay between successive connect starts" },
	[OPT_CLIENTS] = { "clients", N(1, 1 << 20, 1), .flags = OPT_F_CLIENT | OPT_F_PER_AGENT,
			  .arg = "N", .help = "connections of one agent process" },
	[OPT_TLS_CA] = { "tls-ca", OPT_PATH, .flags = OPT_F_RC | OPT_F_UD | OPT_F_OOB_TLS, .arg = "FILE",
			 .help = "PEM CA that signed both certificates",
			 .nofi = "no TLS exchange: the provider connects the endpoints" },
	[OPT_TLS_CERT] = { "tls-cert", OPT_PATH, .flags = OPT_F_RC | OPT_F_UD | OPT_F_OOB_TLS, .arg = "FILE",
			   .help = "PEM certificate",
			   .nofi = "no TLS exchange: the provider connects the endpoints" },
	[OPT_TLS_KEY] = { "tls-key", OPT_PATH, .flags = OPT_F_RC | OPT_F_UD | OPT_F_OOB_TLS, .arg = "FILE",
			  .help = "PEM private key of --tls-cert",
			  .nofi = "no TLS exchange: the provider connects the endpoints" },
	/* def: none, meaning opt_fi_default()'s; a value is checked by opt_fi_name */
	[OPT_FI_PROVIDER] = { "fi-provider", OPT_NAME, .flags = OPT_F_FI_ONLY, .arg = "NAME",
			      .help = "libfabric provider, as fi_info names it" },
	/*
	 * nvme-fabrics' nr_io_queues and queue_size: an I/O queue is one QP on
	 * each side; 128 is nvmet's attr_qid_max default, 16..1024 what
	 * fabrics.c accepts (nvme-rdma may lower the size to its own maximum)
	 */
	[OPT_NVME_IO_QUEUES] = { "nvme-io-queues", N(1, 128, 1), .flags = OPT_F_NVMF | OPT_F_CLIENT,
				 .arg = "N", .help = "nvmf: I/O queues per controller (a QP each, "
						     "besides the admin queue's)" },
	[OPT_NVME_QUEUE_SIZE] = { "nvme-queue-size", N(16, 1024, 128),
				  .flags = OPT_F_NVMF | OPT_F_CLIENT, .arg = "N",
				  .help = "nvmf: entries of each I/O queue" },
};

int opt_fi_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n >= OPT_FI_NAME_MAX ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_;.-") != n)
		return -1;
	return 0;
}

bool opt_fi_verbs(const char *prov)
{
	const char *core = prov;

	/* "verbs;ofi_rxm": the core provider comes first, the utility layers after it */
	return !strncmp(core, "verbs", 5) && (core[5] == '\0' || core[5] == ';');
}

const char *opt_fi_default(enum opt_transport tr, bool rdma)
{
	if (tr == OPT_TR_FI_RDM)
		return rdma ? "verbs;ofi_rxm" : "tcp;ofi_rxm";
	return rdma ? "verbs" : "tcp";
}

int opt_device(const char *s, struct opt_dev *d)
{
	size_t n = s ? strcspn(s, ":") : 0;
	long long port = 0;

	if (!n || n >= sizeof(d->name) ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != n)
		return -1;
	if (s[n] && opt_num(s + n + 1, 1, 255, &port))
		return -1;
	memcpy(d->name, s, n);
	d->name[n] = '\0';
	d->port = (unsigned)port;
	return 0;
}

int opt_num(const char *s, long long min, long long max, long long *out)
{
	long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int opt_cpus(const char *s, int *cpus, int max)
{
	int n = 0;

	while (s) {
		char item[8];
		size_t len = strcspn(s, ",");
		long long v;

		if (!len || len >= sizeof(item) || n == max)
			return -1;
		memcpy(item, s, len);
		item[len] = '\0';
		if (opt_num(item, 0, CPU_SETSIZE - 1, &v))
			return -1;
		cpus[n++] = (int)v;
		s = s[len] ? s + len + 1 : NULL;
	}
	return n;
}

int opt_cpus_str(const int *cpus, int n, char sep, char *buf, size_t len)
{
	size_t l = 0;

	if (len)
		*buf = '\0';
	for (int i = 0; i < n; i++) {
		int k = snprintf(buf + l, len - l, "%s%d", i ? (char[]){ sep, 0 } : "", cpus[i]);

		if (k < 0 || (size_t)k >= len - l)
			return -1;
		l += (size_t)k;
	}
	return 0;
}

static void opt_want(const struct opt_def *d, char *buf, size_t len)
{
	size_t n = 0;

	switch (d->kind) {
	case OPT_NUM:
		snprintf(buf, len, "%lld..%lld", d->min, d->max);
		return;
	case OPT_WORD:
		*buf = '\0';
		for (int i = 0; i < d->nwords; i++) {
			if (!d->words[i])
				continue;
			snprintf(buf + n, len - n, "%s%s", n ? "|" : "", d->words[i]);
			n = strlen(buf);
		}
		return;
	case OPT_FLAG:
		snprintf(buf, len, "no value");
		return;
	case OPT_PATH:
		snprintf(buf, len, "a file name");
		return;
	case OPT_DEV:
		snprintf(buf, len, "NAME[:PORT], port 1..255");
		return;
	case OPT_NAME:
		snprintf(buf, len, "a provider name of fi_info, e.g. verbs or 'tcp;ofi_rxm'");
		return;
	}
}

int opt_parse(enum opt_id id, const char *s, long long *out, char *err, size_t errlen)
{
	const struct opt_def *d = &opt_defs[id];
	char want[96];

	switch (d->kind) {
	case OPT_NUM:
		if (!opt_num(s, d->min, d->max, out))
			return 0;
		break;
	case OPT_WORD:
		for (int i = 0; s && i < d->nwords; i++)
			if (d->words[i] && !strcmp(s, d->words[i])) {
				*out = i;
				return 0;
			}
		break;
	case OPT_FLAG:
		if (!s) {
			*out = 1;
			return 0;
		}
		snprintf(err, errlen, "option '--%s' takes no value", d->name);
		return -1;
	case OPT_PATH:
		if (s && *s) {
			*out = 0;
			return 0;
		}
		break;
	case OPT_NAME:
		if (!opt_fi_name(s)) {
			*out = 0;
			return 0;
		}
		break;
	case OPT_DEV: {
		struct opt_dev dv;

		if (!opt_device(s, &dv)) {
			*out = dv.port;
			return 0;
		}
		break;
	}
	}
	opt_want(d, want, sizeof(want));
	snprintf(err, errlen, "invalid value '%s' for --%s (want %s)", s ? s : "", d->name, want);
	return -1;
}

const char *opt_word(enum opt_id id, long long v)
{
	const struct opt_def *d = &opt_defs[id];

	if (d->kind != OPT_WORD || v < 0 || v >= d->nwords || !d->words[v])
		return "?";
	return d->words[v];
}

bool opt_tr_takes(unsigned flags, enum opt_transport tr)
{
	bool fi = (tr == OPT_TR_FI_MSG && (flags & OPT_F_FI_MSG)) ||
		  (tr == OPT_TR_FI_RDM && (flags & OPT_F_FI_RDM));

	if (flags & OPT_F_FI_ONLY)
		return opt_tr_fi(tr);
	if ((flags & (OPT_F_NVMF | OPT_F_SRP)) && !(flags & OPT_F_RC))
		return (tr == OPT_TR_NVMF && (flags & OPT_F_NVMF)) ||
		       (tr == OPT_TR_SRP && (flags & OPT_F_SRP));
	if (flags & OPT_F_UD_ONLY)
		return tr == OPT_TR_UD || fi;
	if (flags & OPT_F_RC)
		return opt_tr_connected(tr) || fi || (tr == OPT_TR_UD && (flags & OPT_F_UD)) ||
		       (tr == OPT_TR_NVMF && (flags & OPT_F_NVMF)) ||
		       (tr == OPT_TR_SRP && (flags & OPT_F_SRP));
	return true;
}

int opt_tr_refuse(const char *name, unsigned flags, char *err, size_t errlen)
{
	const char *sep = "";
	int k = snprintf(err, errlen, "--%s is an option of --transport ", name);
	size_t n = k < 0 ? errlen : (size_t)k;

	/* the words in the table's order: a new transport's rows name it too */
	for (int tr = 0; tr < OPT_TR_N && n < errlen; tr++) {
		if (!opt_transports[tr] || !opt_tr_takes(flags, tr))
			continue;
		k = snprintf(err + n, errlen - n, "%s%s", sep, opt_transports[tr]);
		n = k < 0 ? errlen : n + (size_t)k;
		sep = "|";
	}
	return -1;
}

int opt_rules(enum opt_transport tr, const bool seen[OPT_N], char *err, size_t errlen)
{
	int tls = seen[OPT_TLS_CA] + seen[OPT_TLS_CERT] + seen[OPT_TLS_KEY];

	/* the fi transports refuse them with each row's reason (fiopt_rules) */
	for (int i = 0; i < OPT_N; i++)
		if (seen[i] && !opt_tr_fi(tr) && !opt_tr_takes(opt_defs[i].flags, tr))
			return opt_tr_refuse(opt_defs[i].name, opt_defs[i].flags, err, errlen);
	if (tls && tls != 3) {
		snprintf(err, errlen, "--tls-ca, --tls-cert and --tls-key go together");
		return -1;
	}
	return 0;
}

int opt_ud_rules(enum opt_transport tr, enum opt_cm cm, long long size, char *err,
		 size_t errlen)
{
	(void)cm;	/* both: oob-tls, and rdma_cm's UDP port space */
	if (tr != OPT_TR_UD)
		return 0;
	if (size > OPT_UD_MTU_MAX - OPT_UD_GRH) {
		snprintf(err, errlen, "--size %lld does not fit one UD datagram "
			 "(at most the path MTU %d minus the %d-byte GRH: %d)", size,
			 OPT_UD_MTU_MAX, OPT_UD_GRH, OPT_UD_MTU_MAX - OPT_UD_GRH);
		return -1;
	}
	return 0;
}

int opt_uc_rules(enum opt_transport tr, enum opt_op op, char *err, size_t errlen)
{
	if (tr != OPT_TR_UC)
		return 0;
	if (op == OPT_OP_READ || op == OPT_OP_ATOMIC) {
		snprintf(err, errlen, "--op %s needs --transport rc (an unreliable connection "
			 "has no RDMA READ or atomics)", opt_word(OPT_OP, op));
		return -1;
	}
	return 0;
}

int opt_thread_rules(enum opt_transport tr, enum opt_model model, enum opt_cq cq, bool srq,
		     enum opt_cm cm, char *err, size_t errlen)
{
	if (model != OPT_MODEL_THREAD || (tr != OPT_TR_RC && tr != OPT_TR_UC))
		return 0;
	if (cq != OPT_CQ_PER_CONN || srq || cm != OPT_CM_OOB_TLS) {
		snprintf(err, errlen, "--server-model thread takes --cq per-conn, no --srq and "
			 "--cm oob-tls (a thread per client owns its connection's CQs)");
		return -1;
	}
	return 0;
}

int opt_cm_rules(enum opt_transport tr, enum opt_cm cm, const bool seen[OPT_N], char *err,
		 size_t errlen)
{
	for (int i = 0; cm != OPT_CM_OOB_TLS && i < OPT_N; i++)
		if (seen[i] && (opt_defs[i].flags & OPT_F_OOB_TLS)) {
			snprintf(err, errlen, "--%s is an option of --cm oob-tls (--cm %s has no TLS)",
				 opt_defs[i].name, opt_word(OPT_CM, cm));
			return -1;
		}
	/* oob-tls has no rdma_cm steps to order: its QPs are made, then exchanged */
	for (int i = 0; cm != OPT_CM_RDMACM && i < OPT_N; i++)
		if (seen[i] && (opt_defs[i].flags & OPT_F_RDMACM)) {
			snprintf(err, errlen, "--%s is an option of --cm rdmacm (it orders rdma_cm's "
				 "steps; --cm %s has none)", opt_defs[i].name, opt_word(OPT_CM, cm));
			return -1;
		}
	/* ud builds its address handles itself, with either CM */
	if (cm == OPT_CM_RDMACM && opt_tr_connected(tr) && seen[OPT_SL]) {
		snprintf(err, errlen, "--sl is not taken by --cm rdmacm with --transport %s: "
			 "rdma_cm picks the SL of the path (--tclass sets its type of service)",
			 opt_word(OPT_TRANSPORT, tr));
		return -1;
	}
	return 0;
}

/* the help's text at column 22, or two blanks after a long option: help2man splits there */
#define OPT_HELP_COL 19

/* "; --transport rc|uc" when not every transport takes it, "; --cm oob-tls only" */
static int opt_help_where(FILE *f, unsigned flags)
{
	const char *sep = "; --transport ";

	for (int tr = 0; !opt_tr_takes(flags, OPT_TR_TCP) && tr < OPT_TR_N; tr++) {
		if (!opt_transports[tr] || !opt_tr_takes(flags, tr))
			continue;
		if (fprintf(f, "%s%s", sep, opt_transports[tr]) < 0)
			return -1;
		sep = "|";
	}
	if ((flags & OPT_F_OOB_TLS) && fprintf(f, "; --cm oob-tls only") < 0)
		return -1;
	if ((flags & OPT_F_RDMACM) && fprintf(f, "; --cm rdmacm only") < 0)
		return -1;
	return 0;
}

static int opt_help_print(FILE *f, const char *name, const char *arg, const char *help,
			  unsigned flags, const char *limits, const char *def)
{
	int n = fprintf(f, "  --%s%s%s", name, arg ? " " : "", arg ? arg : "");

	if (n < 0)
		return -1;
	n -= 2;
	if (fprintf(f, "%*s%s", n < OPT_HELP_COL ? OPT_HELP_COL - n + 1 : 2, "", help) < 0 ||
	    opt_help_where(f, flags))
		return -1;
	if ((limits || def) && fprintf(f, " (%s%s%s%s)", limits ? limits : "",
				       limits && def ? ", " : "", def ? "default " : "",
				       def ? def : "") < 0)
		return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}

int opt_help_row(FILE *f, const char *name, const char *arg, const char *help,
		 const char *limits, const char *def)
{
	return opt_help_print(f, name, arg, help, 0, limits, def);
}

int opt_help_line(FILE *f, enum opt_id id, const char *def)
{
	const struct opt_def *d = &opt_defs[id];
	char limits[48], defs[24];

	snprintf(limits, sizeof(limits), "%lld..%lld", d->min, d->max);
	if (!def && d->def_text) {
		def = d->def_text;
	} else if (!def && d->kind == OPT_NUM && d->def < d->min) {
		def = "automatic";
	} else if (!def && d->kind == OPT_NUM) {
		snprintf(defs, sizeof(defs), "%lld", d->def);
		def = defs;
	} else if (!def && d->kind == OPT_WORD) {
		def = opt_word(id, d->def);
	}
	return opt_help_print(f, d->name, d->arg, d->help, d->flags,
			      d->kind == OPT_NUM ? limits : NULL, def);
}
