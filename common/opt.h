/* SPDX-License-Identifier: MIT */
/*
 * opt: the option vocabulary rdmacap and rdmacap-agent share.
 *
 * Offers: the enums of every fixed-choice option, their words, the limits and
 * defaults of every numeric option, one parser per option (opt_parse) and the
 * cross-option rules the agent enforces (opt_rules), but for those of the
 * transports whose endpoints others build: common/fiopt.h (libfabric) and
 * common/nvopt.h (the kernel's nvmf). harness/cli/cli.c and
 * agents/opts.c both parse through this table, so a value the agent would
 * reject is rejected by rdmacap before anything is created.
 *
 * Uses: libc only. Prints only help lines, on the caller's FILE; errors are
 * written into a caller's buffer.
 *
 * A row marked OPT_F_ORCH is rdmacap's alone (what it watches while agents
 * run): its words, limits and default live here with the others, and the agent
 * does not take it.
 *
 * A new choice (say --transport ud) is one enum value before its _N and one
 * word in opt.c's table; a new shared option is one enum opt_id and one row.
 */
#ifndef RDC_COMMON_OPT_H
#define RDC_COMMON_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_transport {
	OPT_TR_NONE, OPT_TR_TCP, OPT_TR_RC, OPT_TR_UD, OPT_TR_UC, OPT_TR_NVMF, OPT_TR_FI_MSG,
	OPT_TR_FI_RDM, OPT_TR_SRP, OPT_TR_N
};
enum opt_cm { OPT_CM_OOB_TLS, OPT_CM_RDMACM, OPT_CM_N };
/*
 * --cm-order: how an rc or uc client agent takes its rdma_cm connections
 * through their steps: each on its own as its events come (pipelined), or each
 * step for all of them before the next (phased, rdma-core's cmtime)
 */
enum opt_cm_order { OPT_CM_ORDER_PIPELINED, OPT_CM_ORDER_PHASED, OPT_CM_ORDER_N };
enum opt_model { OPT_MODEL_EVENT, OPT_MODEL_THREAD, OPT_MODEL_N };
enum opt_cq { OPT_CQ_PER_CONN, OPT_CQ_SHARED, OPT_CQ_N };
enum opt_mr { OPT_MR_PER_CONN, OPT_MR_SHARED, OPT_MR_N };
enum opt_op { OPT_OP_SEND, OPT_OP_WRITE, OPT_OP_READ, OPT_OP_ATOMIC, OPT_OP_N };
enum opt_oob_session { OPT_OOB_PER_AGENT, OPT_OOB_PER_CONN, OPT_OOB_N };
enum opt_poll { OPT_POLL_EVENT, OPT_POLL_BUSY, OPT_POLL_ADAPTIVE, OPT_POLL_N };
/* --ah: how a ud server holds the address handles it answers through */
enum opt_ah { OPT_AH_CACHE, OPT_AH_WC, OPT_AH_LRU, OPT_AH_PEER, OPT_AH_N };

/* --family: the addresses of the topology rdmacap builds */
enum opt_family { OPT_FAM_4, OPT_FAM_6, OPT_FAM_N };

/* the options both programs take, by the same name and with the same rules */
enum opt_id {
	OPT_TRANSPORT, OPT_CM, OPT_CM_ORDER, OPT_SERVER_MODEL, OPT_CQ, OPT_MR, OPT_OP, OPT_OOB_SESSION, OPT_SRQ, OPT_RX_DEPTH,
	OPT_POLL,
	OPT_DEVICE, OPT_GID_INDEX, OPT_SL, OPT_TCLASS, OPT_AH, OPT_AH_MAX, OPT_SIZE, OPT_MSGS, OPT_TIMEOUT,
	OPT_MEM_FLOOR, OPT_FAMILY, OPT_SERVER_THREADS,
	OPT_WORKERS, OPT_QP_SHARE, OPT_PORTS,
	OPT_THINK_MS, OPT_STAGGER_MS, OPT_CLIENTS, OPT_TLS_CA, OPT_TLS_CERT, OPT_TLS_KEY,
	OPT_NVME_IO_QUEUES, OPT_NVME_QUEUE_SIZE,
	OPT_FI_PROVIDER,
	OPT_N
};

enum opt_kind {
	OPT_WORD,	/* one of words[]; the value is the enum */
	OPT_NUM,	/* decimal in [min, max] */
	OPT_FLAG,	/* takes no value */
	OPT_PATH,	/* a non-empty file name */
	OPT_DEV,	/* an RDMA device, NAME[:PORT] (opt_device) */
	OPT_NAME,	/* a libfabric provider name (opt_fi_name) */
};

#define OPT_F_RC 0x1		/* only with --transport rc (or uc: opt_tr_connected) */
#define OPT_F_SERVER 0x2	/* agent: only for --role server */
#define OPT_F_CLIENT 0x4	/* agent: only for --role client */
#define OPT_F_PER_AGENT 0x8	/* agent's value is per process; rdmacap's is a total */
#define OPT_F_OOB_TLS 0x10	/* only with --cm oob-tls (librdmacm has no TLS) */
#define OPT_F_UD 0x20		/* an OPT_F_RC option that --transport ud takes too */
#define OPT_F_HOST 0x40		/* rdmacap: only with --topology host (its own rxe otherwise) */
#define OPT_F_ORCH 0x100	/* rdmacap only: the agent has no such option */
#define OPT_F_NVMF 0x800	/* only with --transport nvmf; with OPT_F_RC: nvmf takes it too */
#define OPT_F_FI_MSG 0x200	/* an OPT_F_RC option --transport fi-msg takes too */
#define OPT_F_FI_RDM 0x2000	/* an OPT_F_RC option --transport fi-rdm takes too */
#define OPT_F_FI (OPT_F_FI_MSG | OPT_F_FI_RDM)
#define OPT_F_FI_ONLY 0x400	/* only with --transport fi-msg or fi-rdm */
#define OPT_F_RDMACM 0x1000	/* only with --cm rdmacm (it orders rdma_cm's steps) */
#define OPT_F_SRP 0x4000	/* only with --transport srp; with OPT_F_RC: srp takes it too */

/* --device NAME[:PORT]: IB_DEVICE_NAME_MAX, and the 8 bits of a port number */
#define OPT_DEV_NAME_MAX 64
struct opt_dev {
	char name[OPT_DEV_NAME_MAX];
	unsigned port;		/* 0: any port */
};
#define OPT_F_UD_ONLY 0x80	/* only with --transport ud */

/* --transport ud: the GRH that heads every UD receive buffer, and the largest
 * RoCE path MTU; a message must fit the port's active MTU minus the GRH */
#define OPT_UD_GRH 40
#define OPT_UD_MTU_MAX 4096
/* --transport ud: the server's receive slots (fewer if the device's max_qp_wr
 * is smaller) and the sends of one round trip before a client counts it lost */
#define OPT_UD_SRV_RECV 4096
#define OPT_UD_TRIES 5

/*
 * --transport ud, --workers 0: the round trips in flight per client agent, so
 * that every send of every round trip in flight (OPT_UD_TRIES each, resends
 * included) fits the server's receive slots together: its RQ cannot overflow,
 * and a round trip is lost only when the network drops it: past the slots,
 * first datagrams are dropped at the server's RQ, not in the network.
 */
static inline long opt_ud_workers(long workers, long agents)
{
	long w;

	if (workers || agents < 1)
		return workers;
	w = OPT_UD_SRV_RECV / OPT_UD_TRIES / agents;
	return w > 0 ? w : 1;
}

/*
 * rc and uc: the connected RDMA transports, one QP per connection, the same
 * setups and resource model (uc is rc's code with another QP type)
 */
static inline bool opt_tr_connected(enum opt_transport tr)
{
	return tr == OPT_TR_RC || tr == OPT_TR_UC;
}

/*
 * nvmf and srp: a kernel service, its target made by the server agent through
 * configfs and its clients the kernel's initiators, in the initial network
 * namespace (docs/ulp.md)
 */
static inline bool opt_tr_kernel(enum opt_transport tr)
{
	return tr == OPT_TR_NVMF || tr == OPT_TR_SRP;
}

/*
 * fi-msg and fi-rdm: libfabric endpoints (agents/fi/), FI_EP_MSG connected
 * through the provider's CM, or FI_EP_RDM addressed through an AV
 */
static inline bool opt_tr_fi(enum opt_transport tr)
{
	return tr == OPT_TR_FI_MSG || tr == OPT_TR_FI_RDM;
}

/* a provider name: fi_info's words ("verbs", "tcp;ofi_rxm") and no more */
#define OPT_FI_NAME_MAX 64
/* A provider name of [A-Za-z0-9_;.-], 1..OPT_FI_NAME_MAX-1 bytes: 0, or -1. */
int opt_fi_name(const char *s);
/* Whether provider prov rides verbs (its core provider, after any ';', is verbs). */
bool opt_fi_verbs(const char *prov);
/*
 * --fi-provider's default for transport tr: verbs for fi-msg, verbs;ofi_rxm
 * for fi-rdm, or over TCP (tcp, tcp;ofi_rxm) when rdma is false: a host with
 * no RDMA device and no rxe to make.
 */
const char *opt_fi_default(enum opt_transport tr, bool rdma);
/*
 * Whether a load point uses RDMA devices: every transport but tcp, and the fi
 * transports only over a verbs provider.
 */
static inline bool opt_tr_rdma(enum opt_transport tr, const char *prov)
{
	return tr != OPT_TR_TCP && !(opt_tr_fi(tr) && prov && !opt_fi_verbs(prov));
}

/* first port of a run when the namespace is our own, and the agent's default */
#define OPT_DEF_PORT 18515
/*
 * --poll adaptive: how long a CQ is polled after its last completion before it
 * is armed and the agent sleeps on the completion channel, when its last gap
 * between completions was shorter than this; one with a longer gap is armed at
 * once (agents/verbs/poll.c). It must be above the round trip of a pair whose
 * sides both sleep, or a ping-pong that once fell asleep stays asleep: its
 * gaps are then that round trip. 5 ms: above the slowest such round trip seen
 * under TCG (64 B, one client, p50 ~3.1 ms with one side armed, 840 us with
 * both), so a sleeping ping-pong starts spinning again; a connection that
 * waits longer between its messages is idle or one of thousands, not a
 * ping-pong.
 */
#define OPT_POLL_SPIN_US 5000
/*
 * --cpus LIST, the agent's alone: the CPUs of its spinning loops (--poll busy
 * or adaptive), one each in loop order, that rdmacap places (harness/point/
 * cpus.c) and the agent binds each loop's thread to before it makes a verbs
 * object. At most OPT_CPUS_MAX: --server-threads' most loops.
 */
#define OPT_CPUS "cpus"
#define OPT_CPUS_MAX 64
/* the agent's exit status for a bad command line (as rdmacap's, TAP's 2) */
#define OPT_EXIT_USAGE 2

struct opt_def {
	const char *name;		/* the long option, without "--" */
	enum opt_kind kind;
	unsigned flags;			/* OPT_F_* */
	long long min, max;		/* OPT_NUM */
	long long def;			/* default: the number, or the enum value */
	const char *const *words;	/* OPT_WORD: indexed by the enum; NULL holes */
	int nwords;
	const char *arg;		/* help: "tcp|rc", "B" */
	const char *def_text;		/* help: the default in words, when not def's */
	const char *help;		/* help: one line, what it means */
	/* OPT_F_RC or OPT_F_UD_ONLY: why an fi transport that does not take it refuses it */
	const char *nofi;
};

/* indexed by enum opt_id */
extern const struct opt_def opt_defs[OPT_N];

/*
 * Parses s as a value of option id into *out (the number, or the enum value).
 * Returns 0, or -1 with "invalid value 'S' for --NAME (want ...)" in err.
 * OPT_FLAG takes no value: only s == NULL is accepted (*out = 1).
 */
int opt_parse(enum opt_id id, const char *s, long long *out, char *err, size_t errlen);

/*
 * "mlx5_0" or "mlx5_0:1": a name of [A-Za-z0-9_.-] under OPT_DEV_NAME_MAX bytes,
 * and a port 1..255. 0, or -1.
 */
int opt_device(const char *s, struct opt_dev *d);

/* Decimal only: no sign, blank or trailing junk; within [min, max]. 0 or -1. */
int opt_num(const char *s, long long min, long long max, long long *out);

/*
 * "0,3,1": CPU numbers below CPU_SETSIZE, at most max of them, into cpus[].
 * Returns how many, or -1.
 */
int opt_cpus(const char *s, int *cpus, int max);

/* cpus[0..n) as opt_cpus reads them, joined by sep ("," or "+"). 0, or -1 if short. */
int opt_cpus_str(const int *cpus, int n, char sep, char *buf, size_t len);

/* The word of enum value v of a word option ("tcp"), or "?" if none. */
const char *opt_word(enum opt_id id, long long v);

/*
 * Whether --transport tr takes an option of these OPT_F_* flags: the one answer
 * that the transport rules (opt_rules, fiopt_rules), the refusals' lists
 * (opt_tr_refuse) and the help's are all made from.
 */
bool opt_tr_takes(unsigned flags, enum opt_transport tr);

/*
 * "--NAME is an option of --transport rc|ud|uc" in err, naming every transport
 * that takes an option of these flags. Returns -1.
 */
int opt_tr_refuse(const char *name, unsigned flags, char *err, size_t errlen);

/*
 * The agent's cross-option rules on what a command line gave (seen[] by
 * opt_id): each option only with a transport that takes it (opt_tr_takes); TLS
 * files all three or none. 0, or -1 with the reason in err.
 */
int opt_rules(enum opt_transport tr, const bool seen[OPT_N], char *err, size_t errlen);

/*
 * The rules of --transport ud (no-op for the others): its QP number and Q_Key
 * travel over --cm oob-tls only, and --size must fit the largest MTU minus the
 * GRH (the agent checks the port's active MTU at start). 0, or -1 with the
 * reason in err.
 */
int opt_ud_rules(enum opt_transport tr, enum opt_cm cm, long long size, char *err,
		 size_t errlen);

/*
 * The rule of --op with --transport uc: UC has no RDMA READ or atomics. 0, or -1
 * with the reason in err.
 */
int opt_uc_rules(enum opt_transport tr, enum opt_op op, char *err, size_t errlen);

/*
 * The rule of --server-model thread with rc and uc: a thread per client owns its
 * connection's CQs and is connected by oob-tls, so --cq per-conn, no --srq and
 * --cm oob-tls. 0, or -1 with the reason in err.
 */
int opt_thread_rules(enum opt_transport tr, enum opt_model model, enum opt_cq cq, bool srq,
		     enum opt_cm cm, char *err, size_t errlen);

/*
 * The rules of --cm (cm is the value given or the default): options marked
 * OPT_F_OOB_TLS not with --cm rdmacm, OPT_F_RDMACM only with it, nor --sl with
 * rdmacm on rc and uc (the CM addresses their QPs). 0, or -1 with the reason in err.
 */
int opt_cm_rules(enum opt_transport tr, enum opt_cm cm, const bool seen[OPT_N], char *err,
		 size_t errlen);

/*
 * Help listings print without a buffer, so no line is cut: "  --size B   message
 * bytes (1..1048576, default 64)" and a newline on f, its default def or, when
 * NULL, the table's. 0, or -1 when f fails.
 */
int opt_help_line(FILE *f, enum opt_id id, const char *def);

/*
 * The layout of every help line of both programs: "  --NAME ARG", padded, the
 * meaning, then "(LIMITS, default DEF)" with whichever of the two is not NULL.
 */
int opt_help_row(FILE *f, const char *name, const char *arg, const char *help,
		 const char *limits, const char *def);

#endif
