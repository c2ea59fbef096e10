// SPDX-License-Identifier: MIT
/*
 * The option vocabulary walked from its own table (common/opt.h): for every
 * option rdmacap and rdmacap-agent share, values beyond its limits, garbage and
 * unknown words are rejected by both parsers, and its boundary values and
 * words are accepted by both with the same value. Also the command-line
 * defects of issue 9: a flag given a value, and report's files and options in
 * any order; and --cpus, the agent's alone. The rules across options are
 * test_optrules'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/nvmfname.h"
#include "common/opt.h"
#include "tests/t_opt.h"

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

/* a stored file or provider name by its length: -1 when none */
static long long t_len(const char *s)
{
	return s ? (long long)strlen(s) : -1;
}

/* what rdmacap (agent false) or the agent stored for option id; -2: that program has none */
#define V(h, a) return agent ? (long long)(a) : (long long)(h)
static long long t_val(enum opt_id id, bool agent)
{
	switch (id) {
	case OPT_TRANSPORT: V(plan.transport, ag.transport);
	case OPT_CM: V(plan.cm, ag.cm);
	case OPT_CM_ORDER: V(plan.cm_order, ag.cm_order);
	case OPT_SERVER_MODEL: V(plan.server_model, ag.model);
	case OPT_CQ: V(plan.cq, ag.cq);
	case OPT_MR: V(plan.mr, ag.mr);
	case OPT_OP: V(plan.op, ag.op);
	case OPT_OOB_SESSION: V(plan.oob_session, ag.oob_session);
	case OPT_SRQ: V(plan.srq, ag.srq);
	case OPT_RX_DEPTH: V(plan.rx_depth, ag.rx_depth);
	case OPT_POLL: V(plan.poll, ag.poll);
	case OPT_AH: V(plan.ah, ag.ah);
	case OPT_AH_MAX: V(plan.ah_max, ag.ah_max);
	case OPT_SIZE: V(plan.size, ag.size);
	case OPT_MSGS: V(plan.msgs, ag.msgs);
	case OPT_TIMEOUT: V(plan.timeout_s, ag.timeout_s);
	/* OPT_F_ORCH: rdmacap's alone */
	case OPT_MEM_FLOOR: V(plan.mem_floor_mib, -2);
	case OPT_FAMILY: V(plan.topo.family == AF_INET6 ? OPT_FAM_6 : OPT_FAM_4, -2);
	case OPT_SERVER_THREADS: V(plan.server_threads, ag.server_threads);
	case OPT_WORKERS: V(plan.workers, ag.workers);
	case OPT_QP_SHARE: V(plan.qp_share, ag.qp_share);
	case OPT_PORTS: V(plan.ports, ag.ports);
	case OPT_THINK_MS: V(plan.think_ms, ag.think_ms);
	case OPT_STAGGER_MS: V(plan.stagger_ms, ag.stagger_ms);
	case OPT_CLIENTS: V(plan.clients[0], ag.clients);
	case OPT_TLS_CA: V(t_len(plan.tls_ca), t_len(ag.tls_ca));
	case OPT_TLS_CERT: V(t_len(plan.tls_cert), t_len(ag.tls_cert));
	case OPT_TLS_KEY: V(t_len(plan.tls_key), t_len(ag.tls_key));
	case OPT_DEVICE: V(strlen(plan.device.name) * 1000 + plan.device.port,
			   strlen(ag.device.name) * 1000 + ag.device.port);
	case OPT_GID_INDEX: V(plan.gid_index, ag.gid_index);
	case OPT_SL: V(plan.sl, ag.sl);
	case OPT_TCLASS: V(plan.tclass, ag.tclass);
	case OPT_NVME_IO_QUEUES: V(plan.nvme_io_queues, ag.nvme_io_queues);
	case OPT_NVME_QUEUE_SIZE: V(plan.nvme_queue_size, ag.nvme_queue_size);
	case OPT_FI_PROVIDER: V(t_len(plan.fi_provider), t_len(ag.fi_provider));
	case OPT_N: break;
	}
	return -2;
}
#undef V

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
				 t_val(id, false) == want :
				 !a && t_val(id, false) == t_val(id, true)),
	       "--%s=%s: %s (rdmacap %d '%s' = %lld, agent %d '%s' = %lld)",
	       opt_defs[id].name, val ? val : "(none)",
	       orch ? "rdmacap accepts, the agent has no such option" : "both accept, same value",
	       h, h_msg(), t_val(id, false), a, aerr,
	       t_val(id, true));
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
#define NDEFECTS 9
static const char *const baddev[] = { "", ":1", "rxe0:", "rxe0:0", "rxe0:256", "rxe0:x",
				      "rxe 0", "rxe0:1:1",
				      "a123456789012345678901234567890123456789012345678901234567890123" };
#define NBADDEV (int)(sizeof(baddev) / sizeof(baddev[0]))
static const char *const badname[] = { "", "tcp ofi_rxm", "verbs/x", "tcp;ofi_rxm!",
				       "a123456789012345678901234567890123456789012345678901234567890123" };
#define NBADNAME (int)(sizeof(badname) / sizeof(badname[0]))
static const char *const gooddev[] = { "rxe0", "mlx5_0:1", "rdc1234rs:255" };
#define NGOODDEV (int)(sizeof(gooddev) / sizeof(gooddev[0]))
static const char *const goodname[] = { "tcp", "verbs;ofi_rxm", "ofi_rxm;ofi_hook_perf" };
#define NGOODNAME (int)(sizeof(goodname) / sizeof(goodname[0]))

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
		case OPT_DEV: n += NGOODDEV + NBADDEV; break;
		case OPT_NAME: n += NGOODNAME + NBADNAME; break;
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

/* an option whose values are names: the good ones taken by both, the bad refused */
static void t_values(enum opt_id id, const char *const *good, int ngood, const char *const *bad,
		     int nbad)
{
	for (int i = 0; i < ngood; i++)
		both_accept(id, good[i]);
	for (int i = 0; i < nbad; i++)
		both_reject(id, bad[i]);
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
			t_values(id, gooddev, NGOODDEV, baddev, NBADDEV);
			break;
		case OPT_NAME:
			t_values(id, goodname, NGOODNAME, badname, NBADNAME);
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

/* issue 9, defects 7 and 8 */
static void t_cli_defects(void)
{
	char path[] = "/tmp/rdc-test-opt-XXXXXX", line[256], base[256];
	int fd = mkstemp(path), rc;
	const struct t_no no[] = {
		{ "rdmacap run --verbose=1", "'--verbose' takes no value" },
		{ "rdmacap run --help=1", "'--help' takes no value" },
		{ "rdmacap-agent --help=1", "'--help' takes no value" },
		{ "rdmacap run --msgs", "'--msgs' needs a value" },
		/* a missing input is named before anything is written */
		{ "rdmacap report /nonexistent/run.json --md out.md", "/nonexistent/run.json" },
		{ base, "/nonexistent/old.json" },
		{ "rdmacap report /tmp --md out.md", "/tmp: not a regular file" },
		{ "rdmacap run --clients 5 extra", "'extra'" },
	};

	if (fd < 0 || write(fd, "{}\n", 3) != 3)
		tap_bail(&t, "mkstemp/write %s", path);
	close(fd);
	snprintf(base, sizeof(base), "rdmacap report %s --baseline /nonexistent/old.json", path);
	t_refused(no, T_N(no));
	snprintf(line, sizeof(line), "rdmacap report %s --md out.md --svg out.svg", path);
	rc = h_line(line);
	tap_ok(&t, !rc && plan.nfiles == 1 && !strcmp(plan.files[0], path) && plan.out_md &&
			   !strcmp(plan.out_md, "out.md") && plan.out_svg,
	       "report FILE --md OUT: options after the file (%s)", h_msg());
	unlink(path);
}

/* --cpus: the agent's alone; a list of CPUs, one per spinning loop */
#define NCPUS 8
static void t_cpus(void)
{
	static const char *const bad[] = { "", "0,", ",0", "1024", "-1", "a", "0,,1" };
	static const struct t_no no[] = {
		{ "rdmacap-agent --role=client --transport=rc --cm=rdmacm --poll=event --cpus=2",
		  "--cpus is for --poll busy|adaptive" },
		/* a CPU per --server-threads loop */
		{ "rdmacap-agent --role=server --transport=rc --cm=rdmacm --poll=adaptive "
		  "--server-threads=2 --cpus=2", "names 1 CPUs for 2 spinning loops" },
		{ "rdmacap-agent --role=server --transport=tcp --cpus=0",
		  "--cpus is an option of --transport rc" },
		/* rdmacap places the loops itself */
		{ "rdmacap run --transport rc --poll busy --cpus 0", "--cpus" },
	};
	char many[OPT_CPUS_MAX * 3 + 4] = "0", str[32], shortbuf[4];
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
	rc = a_line("rdmacap-agent --role=client --transport=rc --cm=rdmacm --poll=busy --cpus=2");
	tap_ok(&t, !rc && ag.ncpus == 1 && ag.cpus[0] == 2, "agent client --poll busy --cpus 2 (%s)",
	       aerr);
	t_refused(no, T_N(no));
}

int main(void)
{
	tap_init(&t, stdout);
	tap_plan(&t, t_count() + NCPUS);
	t_cpus();
	t_vocabulary();
	t_cli_defects();
	tap_totals(&t);
	return tap_exit_code(&t);
}
