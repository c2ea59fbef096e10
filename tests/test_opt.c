// SPDX-License-Identifier: MIT
/*
 * The option vocabulary walked from its own table (common/opt.h): for every
 * option rdmacap and rdmacap-agent share, values beyond its limits, garbage and
 * unknown words are rejected by both parsers, and its boundary values and
 * words are accepted by both with the same value. Also the command-line
 * defects of issue 9: a flag given a value, and report's files and options in
 * any order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/opts.h"
#include "common/nvmfname.h"
#include "common/opt.h"
#include "harness/cli/plan.h"
#include "harness/figures/json.h"
#include "tap/tap.h"

static struct tap t;
static struct hp_plan plan;
static struct ag_opts ag;
static char herr[1024], aerr[256];

#define MAXARG 16

struct argv {
	char *v[MAXARG + 1];
	char buf[MAXARG][160];
	int n;
};

static void av_add(struct argv *a, const char *fmt, const char *s)
{
	snprintf(a->buf[a->n], sizeof(a->buf[0]), fmt, s);
	a->v[a->n] = a->buf[a->n];
	a->v[++a->n] = NULL;
}

/* rdmacap run [--transport rc] --NAME=VALUE (VALUE NULL: --NAME) */
static int h_parse(enum opt_id id, const char *val)
{
	const struct opt_def *d = &opt_defs[id];
	struct argv a = { .n = 0 };
	FILE *f = fmemopen(herr, sizeof(herr), "w");
	int rc;

	memset(herr, 0, sizeof(herr));
	av_add(&a, "%s", "rdmacap");
	av_add(&a, "%s", "run");
	if (d->flags & (OPT_F_RC | OPT_F_UD_ONLY))
		av_add(&a, "--transport=%s", d->flags & OPT_F_UD_ONLY ? "ud" : "rc");
	else if (d->flags & OPT_F_NVMF)
		av_add(&a, "--transport=%s", "nvmf");
	if (d->flags & OPT_F_FI_ONLY)
		av_add(&a, "%s", "--transport=fi-msg");
	if (d->flags & OPT_F_RDMACM)
		av_add(&a, "%s", "--cm=rdmacm");
	/* nvmf and srp run on the host topology only (the kernel's initial namespace) */
	if ((d->flags & (OPT_F_HOST | OPT_F_NVMF)) ||
	    (id == OPT_TRANSPORT && val && (!strcmp(val, "nvmf") || !strcmp(val, "srp"))))
		av_add(&a, "%s", "--topology=host");
	if (d->kind == OPT_PATH) {
		/* the three TLS files go together: give the other two */
		for (int i = OPT_TLS_CA; i <= OPT_TLS_KEY; i++)
			if (i != (int)id)
				av_add(&a, "--%s=x.pem", opt_defs[i].name);
	}
	if (id == OPT_CLIENTS) /* rdmacap's --clients is a total: one agent takes them all */
		av_add(&a, "%s", "--agents=1");
	av_add(&a, val ? "--%s=" : "--%s", d->name);
	if (val)
		strncat(a.buf[a.n - 1], val, sizeof(a.buf[0]) - strlen(a.buf[a.n - 1]) - 1);
	rc = hp_parse(&plan, a.n, a.v, f);
	fclose(f);
	return rc;
}

/* rdmacap-agent --role R [--transport rc ... TLS] --NAME=VALUE */
static int a_parse(enum opt_id id, const char *val)
{
	const struct opt_def *d = &opt_defs[id];
	struct argv a = { .n = 0 };

	av_add(&a, "%s", "rdmacap-agent");
	av_add(&a, "--role=%s", d->flags & OPT_F_SERVER ? "server" : "client");
	/* the fi transports: the agent is told its provider by rdmacap */
	if (d->flags & OPT_F_FI_ONLY) {
		av_add(&a, "%s", "--transport=fi-msg");
		goto opt;
	}
	if (id == OPT_TRANSPORT && val && !strncmp(val, "fi-", 3)) {
		av_add(&a, "%s", "--fi-provider=tcp");
		goto opt;
	}
	/* rc, ud and uc with oob-tls need their TLS files (rdmacap makes its own); rdmacm takes none */
	if (id == OPT_TRANSPORT && val && !strcmp(val, "nvmf"))
		av_add(&a, "--nqn=%s", NVMFN_NQN_PREFIX "1a2b");
	if (id == OPT_TRANSPORT && val && !strcmp(val, "srp")) {
		av_add(&a, "%s", "--run=1a2b");
		av_add(&a, "%s", "--device=rxe0");
	}
	if (id != OPT_TRANSPORT ||
	    (val && (!strcmp(val, "rc") || !strcmp(val, "ud") || !strcmp(val, "uc")))) {
		if (id != OPT_TRANSPORT && (d->flags & (OPT_F_NVMF | OPT_F_RC)) == OPT_F_NVMF) {
			av_add(&a, "--transport=%s", "nvmf");
			av_add(&a, "--nqn=%s", NVMFN_NQN_PREFIX "1a2b");
			goto value;
		}
		if (id != OPT_TRANSPORT)
			av_add(&a, "--transport=%s", d->flags & OPT_F_UD_ONLY ? "ud" : "rc");
		if (d->flags & OPT_F_RDMACM)
			av_add(&a, "%s", "--cm=rdmacm");
		for (int i = OPT_TLS_CA; i <= OPT_TLS_KEY && !(id == OPT_CM && val && !strcmp(val, "rdmacm")) &&
				     !(d->flags & OPT_F_RDMACM); i++)
			if (i != (int)id)
				av_add(&a, "--%s=x.pem", opt_defs[i].name);
	}
value:
opt:
	av_add(&a, val ? "--%s=" : "--%s", d->name);
	if (val)
		strncat(a.buf[a.n - 1], val, sizeof(a.buf[0]) - strlen(a.buf[a.n - 1]) - 1);
	memset(aerr, 0, sizeof(aerr));
	return ag_opts_parse(&ag, a.n, a.v, aerr, sizeof(aerr));
}

/* the value each parser stored for option id */
static long long h_val(enum opt_id id)
{
	switch (id) {
	case OPT_TRANSPORT: return plan.transport;
	case OPT_CM: return plan.cm;
	case OPT_CM_ORDER: return plan.cm_order;
	case OPT_SERVER_MODEL: return plan.server_model;
	case OPT_CQ: return plan.cq;
	case OPT_MR: return plan.mr;
	case OPT_OP: return plan.op;
	case OPT_OOB_SESSION: return plan.oob_session;
	case OPT_SRQ: return plan.srq;
	case OPT_RX_DEPTH: return plan.rx_depth;
	case OPT_POLL: return plan.poll;
	case OPT_AH: return plan.ah;
	case OPT_AH_MAX: return plan.ah_max;
	case OPT_SIZE: return plan.size;
	case OPT_MSGS: return plan.msgs;
	case OPT_TIMEOUT: return plan.timeout_s;
	case OPT_MEM_FLOOR: return plan.mem_floor_mib;
	case OPT_FAMILY: return plan.topo.family == AF_INET6 ? OPT_FAM_6 : OPT_FAM_4;
	case OPT_SERVER_THREADS: return plan.server_threads;
	case OPT_WORKERS: return plan.workers;
	case OPT_QP_SHARE: return plan.qp_share;
	case OPT_PORTS: return plan.ports;
	case OPT_THINK_MS: return plan.think_ms;
	case OPT_STAGGER_MS: return plan.stagger_ms;
	case OPT_CLIENTS: return plan.clients[0];
	case OPT_TLS_CA: return plan.tls_ca ? (long long)strlen(plan.tls_ca) : -1;
	case OPT_TLS_CERT: return plan.tls_cert ? (long long)strlen(plan.tls_cert) : -1;
	case OPT_TLS_KEY: return plan.tls_key ? (long long)strlen(plan.tls_key) : -1;
	case OPT_DEVICE: return (long long)strlen(plan.device.name) * 1000 + plan.device.port;
	case OPT_GID_INDEX: return plan.gid_index;
	case OPT_SL: return plan.sl;
	case OPT_TCLASS: return plan.tclass;
	case OPT_NVME_IO_QUEUES: return plan.nvme_io_queues;
	case OPT_NVME_QUEUE_SIZE: return plan.nvme_queue_size;
	case OPT_FI_PROVIDER: return (long long)strlen(plan.fi_provider);
	case OPT_N: break;
	}
	return -2;
}

static long long a_val(enum opt_id id)
{
	switch (id) {
	case OPT_TRANSPORT: return ag.transport;
	case OPT_CM: return ag.cm;
	case OPT_CM_ORDER: return ag.cm_order;
	case OPT_SERVER_MODEL: return ag.model;
	case OPT_CQ: return ag.cq;
	case OPT_MR: return ag.mr;
	case OPT_OP: return ag.op;
	case OPT_OOB_SESSION: return ag.oob_session;
	case OPT_SRQ: return ag.srq;
	case OPT_RX_DEPTH: return ag.rx_depth;
	case OPT_POLL: return ag.poll;
	case OPT_AH: return ag.ah;
	case OPT_AH_MAX: return ag.ah_max;
	case OPT_SIZE: return ag.size;
	case OPT_MSGS: return ag.msgs;
	case OPT_TIMEOUT: return ag.timeout_s;
	case OPT_MEM_FLOOR: /* OPT_F_ORCH: rdmacap's alone */
	case OPT_FAMILY: break;
	case OPT_SERVER_THREADS: return ag.server_threads;
	case OPT_WORKERS: return ag.workers;
	case OPT_QP_SHARE: return ag.qp_share;
	case OPT_PORTS: return ag.ports;
	case OPT_THINK_MS: return ag.think_ms;
	case OPT_STAGGER_MS: return ag.stagger_ms;
	case OPT_CLIENTS: return ag.clients;
	case OPT_TLS_CA: return ag.tls_ca ? (long long)strlen(ag.tls_ca) : -1;
	case OPT_TLS_CERT: return ag.tls_cert ? (long long)strlen(ag.tls_cert) : -1;
	case OPT_TLS_KEY: return ag.tls_key ? (long long)strlen(ag.tls_key) : -1;
	case OPT_DEVICE: return (long long)strlen(ag.device.name) * 1000 + ag.device.port;
	case OPT_GID_INDEX: return ag.gid_index;
	case OPT_SL: return ag.sl;
	case OPT_TCLASS: return ag.tclass;
	case OPT_NVME_IO_QUEUES: return ag.nvme_io_queues;
	case OPT_NVME_QUEUE_SIZE: return ag.nvme_queue_size;
	case OPT_FI_PROVIDER: return ag.fi_provider ? (long long)strlen(ag.fi_provider) : -1;
	case OPT_N: break;
	}
	return -2;
}

/* the first line of rdmacap's message, for the test's description */
static const char *h_msg(void)
{
	herr[strcspn(herr, "\n")] = '\0';
	return herr;
}

static void both_accept(enum opt_id id, const char *val)
{
	int h = h_parse(id, val), a = a_parse(id, val);
	/* rdmacap's own option: the agent does not know it, and says which */
	bool orch = opt_defs[id].flags & OPT_F_ORCH;
	/* a word's value is its index in the table, a number's itself */
	long long want = 0;
	char werr[128];

	if (orch && opt_parse(id, val, &want, werr, sizeof(werr)))
		want = -1;

	/* rdmacap then loads the TLS files, which do not exist here (tests/cli-usage.t) */
	if (opt_defs[id].kind == OPT_PATH && h == -1 && strstr(herr, ".pem: No such file"))
		h = 0;
	tap_ok(&t, !h && (orch ? a == -1 && strstr(aerr, opt_defs[id].name) &&
				 h_val(id) == want :
				 !a && h_val(id) == a_val(id)),
	       "--%s=%s: %s (rdmacap %d '%s' = %lld, agent %d '%s' = %lld)",
	       opt_defs[id].name, val ? val : "(none)",
	       orch ? "rdmacap accepts, the agent has no such option" : "both accept, same value",
	       h, h_msg(), h_val(id), a, aerr,
	       a_val(id));
}

static void both_reject(enum opt_id id, const char *val)
{
	int h = h_parse(id, val), a = a_parse(id, val);

	tap_ok(&t, h == -1 && a == -1 && strstr(herr, opt_defs[id].name) &&
			   strstr(aerr, opt_defs[id].name),
	       "--%s=%s: both reject, naming it (%s | %s)", opt_defs[id].name, val, h_msg(), aerr);
}

static const char *const garbage[] = { "", "x", "1x", " 1", "+1", "-1", "0x10", "1.5",
				       "99999999999999999999" };
#define NGARBAGE (int)(sizeof(garbage) / sizeof(garbage[0]))
#define NDEFECTS (19 + NRCOPS)
#define NRCOPS 13
static const char *const baddev[] = { "", ":1", "rxe0:", "rxe0:0", "rxe0:256", "rxe0:x",
				      "rxe 0", "rxe0:1:1",
				      "a123456789012345678901234567890123456789012345678901234567890123" };
#define NBADDEV (int)(sizeof(baddev) / sizeof(baddev[0]))
static const char *const badname[] = { "", "tcp ofi_rxm", "verbs/x", "tcp;ofi_rxm!",
				       "a123456789012345678901234567890123456789012345678901234567890123" };
#define NBADNAME (int)(sizeof(badname) / sizeof(badname[0]))

/* the plan: as many tests as the table asks for */
static int t_count(void)
{
	int n = NDEFECTS;

	for (int id = 0; id < OPT_N; id++) {
		const struct opt_def *d = &opt_defs[id];

		switch (d->kind) {
		case OPT_NUM: n += 3 + (d->min > 0) + NGARBAGE; break;
		case OPT_WORD:
			for (int i = 0; i < d->nwords; i++)
				n += d->words[i] ? 3 : 0;
			n += 3;
			break;
		case OPT_FLAG: n += 3; break;
		case OPT_PATH: n += 2; break;
		case OPT_DEV: n += 3 + NBADDEV; break;
		case OPT_NAME: n += 3 + NBADNAME; break;
		}
		n += !!(d->flags & (OPT_F_RC | OPT_F_UD_ONLY | OPT_F_FI_ONLY)) +
		     !!(d->flags & OPT_F_HOST);
	}
	return n;
}

static void t_num(enum opt_id id)
{
	const struct opt_def *d = &opt_defs[id];
	char v[32];

	snprintf(v, sizeof(v), "%lld", d->min);
	both_accept(id, v);
	snprintf(v, sizeof(v), "%lld", d->max);
	both_accept(id, v);
	if (d->min > 0) {
		snprintf(v, sizeof(v), "%lld", d->min - 1);
		both_reject(id, v);
	}
	snprintf(v, sizeof(v), "%lld", d->max + 1);
	both_reject(id, v);
	for (int i = 0; i < NGARBAGE; i++)
		both_reject(id, garbage[i]);
}

static void t_word(enum opt_id id)
{
	const struct opt_def *d = &opt_defs[id];
	char v[64];

	for (int i = 0; i < d->nwords; i++) {
		if (!d->words[i])
			continue;
		both_accept(id, d->words[i]);
		snprintf(v, sizeof(v), "%sx", d->words[i]);
		both_reject(id, v);
		snprintf(v, sizeof(v), " %s", d->words[i]);
		both_reject(id, v);
	}
	both_reject(id, "");
	both_reject(id, "nosuchword");
	both_reject(id, "xrc");
}

static void t_vocabulary(void)
{
	for (int id = 0; id < OPT_N; id++) {
		switch (opt_defs[id].kind) {
		case OPT_NUM: t_num(id); break;
		case OPT_WORD: t_word(id); break;
		case OPT_FLAG:
			both_accept(id, NULL);
			both_reject(id, "1");
			tap_ok(&t, strstr(herr, "takes no value") && strstr(aerr, "takes no value"),
			       "--%s=1: both say it takes no value", opt_defs[id].name);
			break;
		case OPT_PATH:
			both_accept(id, "f.pem");
			both_reject(id, "");
			break;
		case OPT_DEV:
			both_accept(id, "rxe0");
			both_accept(id, "mlx5_0:1");
			both_accept(id, "rdc1234rs:255");
			for (int i = 0; i < NBADDEV; i++)
				both_reject(id, baddev[i]);
			break;
		case OPT_NAME:
			both_accept(id, "tcp");
			both_accept(id, "verbs;ofi_rxm");
			both_accept(id, "ofi_rxm;ofi_hook_perf");
			for (int i = 0; i < NBADNAME; i++)
				both_reject(id, badname[i]);
			break;
		}
		/* a --topology host option elsewhere: rdmacap makes its own rxe there */
		if (opt_defs[id].flags & OPT_F_HOST) {
			char hl[160];
			FILE *f = fmemopen(herr, sizeof(herr), "w");
			char *hv[] = { "rdmacap", "run", "--transport=rc", hl, NULL };

			snprintf(hl, sizeof(hl), "--%s=%s", opt_defs[id].name,
				 opt_defs[id].kind == OPT_DEV ? "rxe0" : "1");
			tap_ok(&t, hp_parse(&plan, 4, hv, f) == -1,
			       "%s without --topology host: rejected", hl);
			fclose(f);
		}
		/* an rc or ud option with --transport tcp: the agent's rule, in both */
		if (opt_defs[id].flags & (OPT_F_RC | OPT_F_UD_ONLY | OPT_F_FI_ONLY)) {
			char hl[160], al[160];
			FILE *f = fmemopen(herr, sizeof(herr), "w");
			char *hv[] = { "rdmacap", "run", "--transport=tcp", hl, NULL };
			char *av[] = { "rdmacap-agent", "--role=client", "--transport=tcp", al, NULL };
			const char *val = opt_defs[id].kind == OPT_WORD ?
				opt_word(id, opt_defs[id].def) :
				opt_defs[id].kind == OPT_NAME ? "tcp" : "f.pem";

			snprintf(hl, sizeof(hl), opt_defs[id].kind == OPT_FLAG ? "--%s" : "--%s=%s",
				 opt_defs[id].name, val);
			snprintf(al, sizeof(al), "%s", hl);
			tap_ok(&t, hp_parse(&plan, 4, hv, f) == -1 &&
					   ag_opts_parse(&ag, 4, av, aerr, sizeof(aerr)) == -1,
			       "%s with --transport tcp: both reject (%s)", hl, aerr);
			fclose(f);
		}
	}
}

static int h_line(const char *line)
{
	char buf[512], *argv[32];
	int argc = 0, rc;
	FILE *f = fmemopen(herr, sizeof(herr), "w");

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *s = strtok(buf, " "); s && argc < 31; s = strtok(NULL, " "))
		argv[argc++] = s;
	argv[argc] = NULL;
	memset(herr, 0, sizeof(herr));
	rc = hp_parse(&plan, argc, argv, f);
	fclose(f);
	return rc;
}

/* issue 9, defects 7 and 8 */
static void t_cli_defects(void)
{
	char path[] = "/tmp/rdc-test-opt-XXXXXX", line[256];
	int fd = mkstemp(path), rc;
	char *ah[] = { "rdmacap-agent", "--help=1", NULL };

	rc = h_line("rdmacap run --verbose=1");
	tap_ok(&t, rc == -1 && strstr(herr, "'--verbose' takes no value"),
	       "--verbose=1: takes no value (%s)", h_msg());
	rc = h_line("rdmacap run --help=1");
	tap_ok(&t, rc == -1 && strstr(herr, "'--help' takes no value"),
	       "--help=1: takes no value (%s)", h_msg());
	rc = ag_opts_parse(&ag, 2, ah, aerr, sizeof(aerr));
	tap_ok(&t, rc == -1 && strstr(aerr, "'--help' takes no value"),
	       "agent --help=1: takes no value (%s)", aerr);
	rc = h_line("rdmacap run --msgs");
	tap_ok(&t, rc == -1 && strstr(herr, "'--msgs' needs a value"),
	       "--msgs without a value: needs a value (%s)", h_msg());

	if (fd < 0 || write(fd, "{}\n", 3) != 3)
		tap_bail(&t, "mkstemp/write %s", path);
	close(fd);
	snprintf(line, sizeof(line), "rdmacap report %s --md out.md --svg out.svg", path);
	rc = h_line(line);
	tap_ok(&t, !rc && plan.nfiles == 1 && !strcmp(plan.files[0], path) && plan.out_md &&
			   !strcmp(plan.out_md, "out.md") && plan.out_svg,
	       "report FILE --md OUT: options after the file (%s)", h_msg());
	rc = h_line("rdmacap report /nonexistent/run.json --md out.md");
	tap_ok(&t, rc == -1 && strstr(herr, "/nonexistent/run.json"),
	       "report: a missing input is named before anything is written (%s)", h_msg());
	snprintf(line, sizeof(line), "rdmacap report %s --baseline /nonexistent/old.json", path);
	rc = h_line(line);
	tap_ok(&t, rc == -1 && strstr(herr, "/nonexistent/old.json"),
	       "report: a missing baseline is named (%s)", h_msg());
	rc = h_line("rdmacap report /tmp --md out.md");
	tap_ok(&t, rc == -1 && strstr(herr, "/tmp: not a regular file"),
	       "report: a directory is not an input (%s)", h_msg());
	/* --transport ud: either --cm, and a message fits one datagram */
	rc = h_line("rdmacap run --transport ud --cm rdmacm --ah wc");
	tap_ok(&t, !rc && plan.cm == OPT_CM_RDMACM && plan.ah == OPT_AH_WC,
	       "ud with --cm rdmacm --ah wc: accepted (%s)", h_msg());
	rc = h_line("rdmacap run --transport rc --ah wc");
	tap_ok(&t, rc == -1 && strstr(herr, "--ah is an option of --transport ud"),
	       "rc with --ah: rejected, named (%s)", h_msg());
	rc = h_line("rdmacap run --transport ud --size 4057");
	tap_ok(&t, rc == -1 && strstr(herr, "does not fit one UD datagram"),
	       "ud --size above 4096 minus the GRH: rejected (%s)", h_msg());
	rc = h_line("rdmacap run --transport ud --size 4056");
	tap_ok(&t, !rc && plan.transport == OPT_TR_UD, "ud --size 4056: accepted (%s)", h_msg());
	rc = h_line("rdmacap run --transport ud --cq shared");
	tap_ok(&t, rc == -1 && strstr(herr, "--cq is an option of --transport rc"),
	       "ud with an rc-only option: rejected (%s)", h_msg());
	/* fi transports: a verbs option is refused with its row's reason; their own taken */
	rc = h_line("rdmacap run --transport fi-msg --srq");
	tap_ok(&t, rc == -1 && strstr(herr, "--srq does not apply to --transport fi-msg: "
				      "no shared receive context"),
	       "fi-msg with --srq: refused naming why (%s)", h_msg());
	rc = h_line("rdmacap run --transport fi-rdm --srq");
	tap_ok(&t, !rc && plan.srq, "fi-rdm with --srq: accepted (%s)", h_msg());
	rc = h_line("rdmacap run --transport fi-rdm --server-model thread");
	tap_ok(&t, rc == -1 && strstr(herr, "one event loop"),
	       "fi-rdm with --server-model thread: refused (%s)", h_msg());
	rc = h_line("rdmacap run --transport fi-rdm --cq shared --poll busy --fi-provider tcp;ofi_rxm");
	tap_ok(&t, !rc && plan.cq == OPT_CQ_SHARED && plan.poll == OPT_POLL_BUSY &&
			   !strcmp(plan.fi_provider, "tcp;ofi_rxm"),
	       "fi-rdm with --cq shared --poll busy --fi-provider: taken (%s)", h_msg());
	tap_ok(&t, opt_fi_verbs("verbs;ofi_rxm") && opt_fi_verbs("verbs") &&
			   !opt_fi_verbs("verbsx") && !opt_fi_verbs("tcp;ofi_rxm") &&
			   opt_tr_rdma(OPT_TR_FI_MSG, "verbs") && !opt_tr_rdma(OPT_TR_FI_RDM, "tcp;ofi_rxm") &&
			   opt_tr_rdma(OPT_TR_RC, NULL) && !opt_tr_rdma(OPT_TR_TCP, NULL),
	       "a provider rides verbs by its core name; only those use RDMA devices");
	rc = h_line("rdmacap run --clients 5 extra");
	tap_ok(&t, rc == -1 && strstr(herr, "'extra'"), "run: a stray word is still named (%s)",
	       h_msg());
	unlink(path);
}

/* issue 14: uc has no READ or atomics and no rdmacm; both programs say so */
static void t_rcops(void)
{
	char *av[] = { "rdmacap-agent", "--role=client", "--transport=uc", "--op=atomic",
		       "--tls-ca=x.pem", "--tls-cert=x.pem", "--tls-key=x.pem", NULL };
	int rc;

	rc = h_line("rdmacap run --transport uc --op read");
	tap_ok(&t, rc == -1 && strstr(herr, "--op read needs --transport rc"),
	       "uc --op read: rejected, named (%s)", h_msg());
	rc = h_line("rdmacap run --transport uc --op atomic");
	tap_ok(&t, rc == -1 && strstr(herr, "no RDMA READ or atomics"),
	       "uc --op atomic: rejected, named (%s)", h_msg());
	rc = h_line("rdmacap run --transport uc --cm rdmacm --op write");
	tap_ok(&t, !rc && plan.transport == OPT_TR_UC && plan.cm == OPT_CM_RDMACM,
	       "uc --cm rdmacm --op write: accepted (%s)", h_msg());
	rc = h_line("rdmacap run --transport uc --op write --cq shared --srq --poll busy");
	tap_ok(&t, !rc && plan.transport == OPT_TR_UC && plan.op == OPT_OP_WRITE && plan.srq,
	       "uc takes rc's options (%s)", h_msg());
	rc = h_line("rdmacap run --transport rc --op atomic --size 1 --cm rdmacm");
	tap_ok(&t, !rc && plan.op == OPT_OP_ATOMIC, "rc --op atomic --size 1: accepted (%s)",
	       h_msg());
	rc = h_line("rdmacap run --transport ud --op read");
	tap_ok(&t, rc == -1 && strstr(herr, "--op is an option of --transport rc"),
	       "ud --op read: rejected (%s)", h_msg());
	memset(aerr, 0, sizeof(aerr));
	rc = ag_opts_parse(&ag, 7, av, aerr, sizeof(aerr));
	tap_ok(&t, rc == -1 && strstr(aerr, "--op atomic needs --transport rc"),
	       "agent uc --op atomic: rejected, named (%s)", aerr);
	/* a thread per client owns its CQs and is connected by oob-tls */
	rc = h_line("rdmacap run --transport rc --server-model thread --cq shared");
	tap_ok(&t, rc == -1 && strstr(herr, "--server-model thread takes --cq per-conn"),
	       "rc thread --cq shared: rejected, named (%s)", h_msg());
	rc = h_line("rdmacap run --transport uc --server-model thread --srq");
	tap_ok(&t, rc == -1 && strstr(herr, "--server-model thread takes"),
	       "uc thread --srq: rejected (%s)", h_msg());
	rc = h_line("rdmacap run --transport rc --server-model thread --cm rdmacm");
	tap_ok(&t, rc == -1 && strstr(herr, "--server-model thread takes"),
	       "rc thread --cm rdmacm: rejected (%s)", h_msg());
	rc = h_line("rdmacap run --transport rc --server-model thread");
	tap_ok(&t, !rc && plan.server_model == OPT_MODEL_THREAD,
	       "rc thread, per-conn CQs, oob-tls: accepted (%s)", h_msg());
	rc = h_line("rdmacap run --transport tcp --server-model thread");
	tap_ok(&t, !rc && plan.server_model == OPT_MODEL_THREAD,
	       "tcp thread: accepted (%s)", h_msg());
	{
		char *tv[] = { "rdmacap-agent", "--role=server", "--transport=rc",
			       "--server-model=thread", "--srq", "--tls-ca=x.pem",
			       "--tls-cert=x.pem", "--tls-key=x.pem", NULL };

		memset(aerr, 0, sizeof(aerr));
		rc = ag_opts_parse(&ag, 8, tv, aerr, sizeof(aerr));
		tap_ok(&t, rc == -1 && strstr(aerr, "--server-model thread takes"),
		       "agent rc thread --srq: rejected, named (%s)", aerr);
	}
}

/*
 * --sl and --tclass: ud makes its address handles with either CM; rdma_cm
 * addresses rc and uc QPs and picks their SL, so --sl is refused there.
 */
#define NPATH 8
static void t_path(void)
{
	char *av[] = { "rdmacap-agent", "--role=client", "--transport=uc", "--cm=rdmacm",
		       "--sl=3", NULL };
	int rc;

	rc = h_line("rdmacap run --transport rc --sl 3 --tclass 96");
	tap_ok(&t, !rc && plan.sl == 3 && plan.tclass == 96, "rc --sl 3 --tclass 96: accepted (%s)",
	       h_msg());
	rc = h_line("rdmacap run --transport ud --cm rdmacm --sl 15 --tclass 255");
	tap_ok(&t, !rc && plan.sl == 15 && plan.tclass == 255,
	       "ud --cm rdmacm --sl 15 --tclass 255: accepted (%s)", h_msg());
	rc = h_line("rdmacap run --transport rc --cm rdmacm --tclass 96");
	tap_ok(&t, !rc && plan.tclass == 96, "rc --cm rdmacm --tclass 96: accepted (%s)", h_msg());
	rc = h_line("rdmacap run --transport rc --cm rdmacm --sl 3");
	tap_ok(&t, rc == -1 && strstr(herr, "--sl is not taken by --cm rdmacm with --transport rc"),
	       "rc --cm rdmacm --sl 3: rejected, named (%s)", h_msg());
	memset(aerr, 0, sizeof(aerr));
	rc = ag_opts_parse(&ag, 5, av, aerr, sizeof(aerr));
	tap_ok(&t, rc == -1 && strstr(aerr, "--sl is not taken by --cm rdmacm with --transport uc"),
	       "agent uc --cm rdmacm --sl 3: rejected, named (%s)", aerr);
	/* a refusal names every transport the table gives the option */
	rc = h_line("rdmacap run --transport tcp --device rxe0 --topology host");
	tap_ok(&t, rc == -1 && strstr(herr, "--device is an option of --transport rc|ud|uc"),
	       "tcp --device: named with rc, ud and uc (%s)", h_msg());
	rc = h_line("rdmacap run --transport ud --srq");
	/* fi-msg's refusal of --srq is opt_fi_rules', with its reason */
	tap_ok(&t, rc == -1 && strstr(herr, "--srq is an option of --transport rc|uc|fi-msg|fi-rdm") &&
		   !strstr(herr, "ud"),
	       "ud --srq: named with rc, uc and the fi transports (%s)", h_msg());
	av[2] = "--transport=tcp", av[3] = "--cpus=0";
	rc = ag_opts_parse(&ag, 4, av, aerr, sizeof(aerr));
	tap_ok(&t, rc == -1 && !strcmp(aerr, "--cpus is an option of --transport rc|uc"),
	       "agent tcp --cpus, an agent-only option: named with rc and uc (%s)", aerr);
}

/*
 * --cm-order orders rdma_cm's steps, so only with --cm rdmacm, and
 * only for rc and uc clients; both programs say why, and the plan keeps it
 */
#define NCMORDER 10
static void t_cm_order(void)
{
	char *av[] = { "rdmacap-agent", "--role=client", "--transport=rc", "--cm-order=phased",
		       "--tls-ca=x.pem", "--tls-cert=x.pem", "--tls-key=x.pem", NULL };
	char *sv[] = { "rdmacap-agent", "--role=server", "--transport=rc", "--cm=rdmacm",
		       "--cm-order=phased", NULL };
	char line[256] = "";
	json_t *js;
	FILE *f;
	int rc;

	rc = h_line("rdmacap storm --transport rc --cm-order phased");
	tap_ok(&t, rc == -1 && strstr(herr, "--cm-order is an option of --cm rdmacm"),
	       "storm rc --cm-order without --cm: rejected, named (%s)", h_msg());
	rc = h_line("rdmacap run --transport uc --cm oob-tls --cm-order pipelined");
	tap_ok(&t, rc == -1 && strstr(herr, "--cm-order is an option of --cm rdmacm"),
	       "uc --cm oob-tls --cm-order: rejected, named (%s)", h_msg());
	rc = h_line("rdmacap run --transport ud --cm rdmacm --cm-order phased");
	tap_ok(&t, rc == -1 && strstr(herr, "--cm-order is an option of --transport rc"),
	       "ud --cm rdmacm --cm-order: rejected (%s)", h_msg());
	rc = h_line("rdmacap ramp --transport uc --cm rdmacm --cm-order phased --clients 10,20");
	tap_ok(&t, !rc && plan.cm_order == OPT_CM_ORDER_PHASED,
	       "ramp uc --cm rdmacm --cm-order phased: taken (%s)", h_msg());
	js = rc ? NULL : js_plan(&plan);
	tap_ok(&t, js && json_is_string(json_object_get(js, "cm_order")) &&
			   !strcmp(json_string_value(json_object_get(js, "cm_order")), "phased"),
	       "the JSON plan records cm_order phased");
	json_decref(js);
	rc = h_line("rdmacap storm --transport rc --cm rdmacm");
	js = rc ? NULL : js_plan(&plan);
	tap_ok(&t, !rc && plan.cm_order == OPT_CM_ORDER_PIPELINED && js &&
			   !strcmp(json_string_value(json_object_get(js, "cm_order")), "pipelined"),
	       "storm rc --cm rdmacm: pipelined by default, recorded (%s)", h_msg());
	json_decref(js);
	rc = h_line("rdmacap run --transport rc");
	js = rc ? NULL : js_plan(&plan);
	tap_ok(&t, js && !json_object_get(js, "cm_order"),
	       "an oob-tls plan names no rdma_cm order");
	json_decref(js);
	memset(aerr, 0, sizeof(aerr));
	rc = ag_opts_parse(&ag, 7, av, aerr, sizeof(aerr));
	tap_ok(&t, rc == -1 && strstr(aerr, "--cm-order is an option of --cm rdmacm"),
	       "agent --cm oob-tls --cm-order: rejected, named (%s)", aerr);
	rc = ag_opts_parse(&ag, 5, sv, aerr, sizeof(aerr));
	tap_ok(&t, rc == -1 && strstr(aerr, "--cm-order is not an option of --role server"),
	       "agent server --cm-order: rejected (%s)", aerr);
	f = fmemopen(line, sizeof(line), "w");
	if (f) {
		opt_help_line(f, OPT_CM_ORDER, NULL);
		fclose(f);
	}
	tap_ok(&t, strstr(line, "--cm-order pipelined|phased") && strstr(line, "cmtime") &&
			   strstr(line, "--cm rdmacm only") && strstr(line, "default pipelined)"),
	       "help: %s", line);
}

/* --cpus: the agent's alone; a list of CPUs, one per spinning loop */
#define NCPUS 8
static void t_cpus(void)
{
	static const char *const bad[] = { "", "0,", ",0", "1024", "-1", "a", "0,,1" };
	char many[OPT_CPUS_MAX * 3 + 4] = "0", str[32], shortbuf[4], *cv[] = { "rdmacap-agent", "--role=client",
		"--transport=rc", "--cm=rdmacm", "--poll=busy", "--cpus=2", NULL };
	int cpus[OPT_CPUS_MAX], n, rejected = 0, rc;

	n = opt_cpus("0,3,1", cpus, OPT_CPUS_MAX);
	tap_ok(&t, n == 3 && cpus[0] == 0 && cpus[1] == 3 && cpus[2] == 1, "--cpus 0,3,1: 3 CPUs");
	tap_ok(&t, !opt_cpus_str(cpus, n, '+', str, sizeof(str)) && !strcmp(str, "0+3+1") &&
	       opt_cpus_str(cpus, n, ',', shortbuf, sizeof(shortbuf)) == -1, "the list written back: %s, -1 if short", str);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		rejected += opt_cpus(bad[i], cpus, OPT_CPUS_MAX) == -1;
	for (int i = 0; i < OPT_CPUS_MAX; i++)
		strcat(many, ",0");
	tap_ok(&t, rejected == (int)(sizeof(bad) / sizeof(bad[0])) &&
	       opt_cpus(many, cpus, OPT_CPUS_MAX) == -1,
	       "--cpus: empty items, CPUs past CPU_SETSIZE, more than %d: rejected", OPT_CPUS_MAX);
	memset(aerr, 0, sizeof(aerr));
	rc = ag_opts_parse(&ag, 6, cv, aerr, sizeof(aerr));
	tap_ok(&t, !rc && ag.ncpus == 1 && ag.cpus[0] == 2, "agent client --poll busy --cpus 2 (%s)",
	       aerr);
	cv[4] = "--poll=event";
	rc = ag_opts_parse(&ag, 6, cv, aerr, sizeof(aerr));
	tap_ok(&t, rc == -1 && strstr(aerr, "--cpus is for --poll busy|adaptive"),
	       "agent --poll event --cpus: rejected (%s)", aerr);
	cv[1] = "--role=server", cv[4] = "--server-threads=2";
	{
		char *sv[] = { cv[0], cv[1], cv[2], cv[3], "--poll=adaptive", cv[4], cv[5], NULL };

		rc = ag_opts_parse(&ag, 7, sv, aerr, sizeof(aerr));
	}
	tap_ok(&t, rc == -1 && strstr(aerr, "names 1 CPUs for 2 spinning loops"),
	       "agent server: a CPU per --server-threads loop (%s)", aerr);
	cv[2] = "--transport=tcp", cv[3] = "--cpus=0";
	rc = ag_opts_parse(&ag, 4, cv, aerr, sizeof(aerr));
	tap_ok(&t, rc == -1 && strstr(aerr, "--cpus is an option of --transport rc"),
	       "agent tcp --cpus: rejected (%s)", aerr);
	rc = h_line("rdmacap run --transport rc --poll busy --cpus 0");
	tap_ok(&t, rc == -1, "rdmacap has no --cpus: rdmacap places the loops (%s)", h_msg());
}

int main(void)
{
	tap_init(&t, stdout);
	tap_plan(&t, t_count() + NCPUS + NPATH + NCMORDER);
	t_cpus();
	t_cm_order();
	t_vocabulary();
	t_cli_defects();
	t_rcops();
	t_path();
	tap_totals(&t);
	return tap_exit_code(&t);
}
