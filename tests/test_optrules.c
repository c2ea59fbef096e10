// SPDX-License-Identifier: MIT
/*
 * The rules across options (common/opt.h's opt_*_rules, common/fiopt.h,
 * common/nvopt.h) through both parsers: each line a transport, CM or server
 * model refuses is refused naming why, each line they take is taken and its
 * plan records it, and a refusal or help line names exactly the transports
 * whose rules take the option. TAP 13 on stdout.
 */
#include <stdio.h>
#include <string.h>

#include "common/fiopt.h"
#include "common/nvopt.h"
#include "common/opt.h"
#include "tests/t_opt.h"

/* the agent's TLS files, which --cm oob-tls needs (never read by the parser) */
#define T_TLS "--tls-ca=x.pem --tls-cert=x.pem --tls-key=x.pem"

static const struct t_no refusals[] = {
	/* ud: either --cm, and a message fits one datagram */
	{ "rdmacap run --transport rc --ah wc", "--ah is an option of --transport ud" },
	{ "rdmacap run --transport ud --size 4057", "does not fit one UD datagram" },
	{ "rdmacap run --transport ud --cq shared", "--cq is an option of --transport rc" },
	/* fi transports: a verbs option is refused with its row's reason */
	{ "rdmacap run --transport fi-msg --srq",
	  "--srq does not apply to --transport fi-msg: no shared receive context" },
	{ "rdmacap run --transport fi-rdm --server-model thread", "one event loop" },
	/* an option of nvmf's alone is no provider's choice: named with nvmf */
	{ "rdmacap run --transport fi-msg --nvme-io-queues 2",
	  "--nvme-io-queues is an option of --transport nvmf" },
	{ "rdmacap-agent --role=client --transport=fi-rdm --fi-provider=tcp --nvme-queue-size=64",
	  "--nvme-queue-size is an option of --transport nvmf" },
	/* issue 14: uc has no READ or atomics; both programs say so */
	{ "rdmacap run --transport uc --op read", "--op read needs --transport rc" },
	{ "rdmacap run --transport uc --op atomic", "no RDMA READ or atomics" },
	{ "rdmacap run --transport ud --op read", "--op is an option of --transport rc" },
	{ "rdmacap-agent --role=client --transport=uc --op=atomic " T_TLS,
	  "--op atomic needs --transport rc" },
	/* a thread per client owns its CQs and is connected by oob-tls */
	{ "rdmacap run --transport rc --server-model thread --cq shared",
	  "--server-model thread takes --cq per-conn" },
	{ "rdmacap run --transport uc --server-model thread --srq", "--server-model thread takes" },
	{ "rdmacap run --transport rc --server-model thread --cm rdmacm",
	  "--server-model thread takes" },
	{ "rdmacap-agent --role=server --transport=rc --server-model=thread --srq " T_TLS,
	  "--server-model thread takes" },
	/* rdma_cm addresses rc and uc QPs and picks their SL; ud makes its own AHs */
	{ "rdmacap run --transport rc --cm rdmacm --sl 3",
	  "--sl is not taken by --cm rdmacm with --transport rc" },
	{ "rdmacap-agent --role=client --transport=uc --cm=rdmacm --sl=3",
	  "--sl is not taken by --cm rdmacm with --transport uc" },
	/* --cm-order orders rdma_cm's steps: --cm rdmacm, rc and uc clients only */
	{ "rdmacap storm --transport rc --cm-order phased",
	  "--cm-order is an option of --cm rdmacm" },
	{ "rdmacap run --transport uc --cm oob-tls --cm-order pipelined",
	  "--cm-order is an option of --cm rdmacm" },
	{ "rdmacap run --transport ud --cm rdmacm --cm-order phased",
	  "--cm-order is an option of --transport rc" },
	{ "rdmacap-agent --role=client --transport=rc --cm-order=phased " T_TLS,
	  "--cm-order is an option of --cm rdmacm" },
	{ "rdmacap-agent --role=server --transport=rc --cm=rdmacm --cm-order=phased",
	  "--cm-order is not an option of --role server" },
	/* a refusal names every transport the table gives the option */
	{ "rdmacap run --transport tcp --device rxe0 --topology host",
	  "--device is an option of --transport rc|ud|uc" },
	/* fi-rdm has ofi_rxm's shared receive context, fi-msg none (fiopt_rules) */
	{ "rdmacap run --transport ud --srq", "--srq is an option of --transport rc|uc|fi-rdm" },
	{ "rdmacap run --transport tcp --srq", "--srq is an option of --transport rc|uc|fi-rdm" },
	{ "rdmacap-agent --role=server --transport=tcp --srq",
	  "--srq is an option of --transport rc|uc|fi-rdm" },
	{ "rdmacap-agent --role=client --transport=tcp --cpus=0",
	  "--cpus is an option of --transport rc|uc" },
};

static const struct t_yes takes[] = {
	{ "rdmacap run --transport ud --cm rdmacm --ah wc", "cm=rdmacm ah=wc" },
	{ "rdmacap run --transport ud --size 4056", "transport=ud size=4056" },
	{ "rdmacap run --transport fi-rdm --srq", "transport=fi-rdm srq=true" },
	{ "rdmacap run --transport uc --cm rdmacm --op write", "transport=uc cm=rdmacm" },
	{ "rdmacap run --transport uc --op write --cq shared --srq --poll busy",
	  "transport=uc op=write cq=shared srq=true poll=busy" },
	{ "rdmacap run --transport rc --op atomic --size 1 --cm rdmacm", "op=atomic size=1" },
	{ "rdmacap run --transport rc --server-model thread", "server_model=thread cq=per-conn" },
	{ "rdmacap run --transport tcp --server-model thread", "server_model=thread" },
	{ "rdmacap run --transport rc --sl 3 --tclass 96", "sl=3 tclass=96" },
	{ "rdmacap run --transport ud --cm rdmacm --sl 15 --tclass 255", "sl=15 tclass=255" },
	{ "rdmacap run --transport rc --cm rdmacm --tclass 96", "tclass=96" },
	{ "rdmacap ramp --transport uc --cm rdmacm --cm-order phased --clients 10,20",
	  "cm_order=phased" },
	/* pipelined by default; an oob-tls plan names no rdma_cm order */
	{ "rdmacap storm --transport rc --cm rdmacm", "cm_order=pipelined" },
	{ "rdmacap run --transport rc", "cm=oob-tls cm_order=-" },
};

/* option id's help line as --help prints it, into buf */
static const char *t_help(enum opt_id id, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	*buf = '\0';
	if (f) {
		opt_help_line(f, id, NULL);
		fclose(f);
	}
	return buf;
}

/* what the plan's JSON does not hold, and the help's words */
#define NOWN 3
static void t_own(void)
{
	char line[256];
	int rc;

	rc = h_line("rdmacap run --transport fi-rdm --cq shared --poll busy "
		    "--fi-provider tcp;ofi_rxm");
	tap_ok(&t, !rc && plan.cq == OPT_CQ_SHARED && plan.poll == OPT_POLL_BUSY &&
			   !strcmp(plan.fi_provider, "tcp;ofi_rxm"),
	       "fi-rdm with --cq shared --poll busy --fi-provider: taken (%s)", h_msg());
	tap_ok(&t, opt_fi_verbs("verbs;ofi_rxm") && opt_fi_verbs("verbs") &&
			   !opt_fi_verbs("verbsx") && !opt_fi_verbs("tcp;ofi_rxm") &&
			   opt_tr_rdma(OPT_TR_FI_MSG, "verbs") &&
			   !opt_tr_rdma(OPT_TR_FI_RDM, "tcp;ofi_rxm") &&
			   opt_tr_rdma(OPT_TR_RC, NULL) && !opt_tr_rdma(OPT_TR_TCP, NULL),
	       "a provider rides verbs by its core name; only those use RDMA devices");
	t_help(OPT_CM_ORDER, line, sizeof(line));
	tap_ok(&t, strstr(line, "--cm-order pipelined|phased") && strstr(line, "cmtime") &&
			   strstr(line, "--cm rdmacm only") && strstr(line, "default pipelined)"),
	       "help: %s", line);
}

/*
 * The transports whose rules (those clicheck.c and agents/opts.c run, every
 * other option at its default) take option id given alone, or with the
 * options it goes with, "|"-joined in the table's order.
 */
static void t_taking(enum opt_id id, char *buf, size_t len)
{
	bool seen[OPT_N] = { false };
	char err[256];
	size_t n = 0;

	seen[id] = true;
	/* the TLS files go together */
	for (int i = OPT_TLS_CA; i <= OPT_TLS_KEY && opt_defs[id].kind == OPT_PATH; i++)
		seen[i] = true;
	*buf = '\0';
	for (int tr = OPT_TR_NONE + 1; tr < OPT_TR_N && n < len; tr++) {
		if (nvopt_rules(tr, seen, err, sizeof(err)) ||
		    opt_rules(tr, seen, err, sizeof(err)) ||
		    fiopt_rules(tr, seen, OPT_MODEL_EVENT, 1, OPT_POLL_EVENT, err, sizeof(err)))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "",
				      opt_word(OPT_TRANSPORT, tr));
	}
}

/* the "a|b" list that follows head in s, or "" */
static const char *t_list(const char *s, const char *head, char *buf, size_t len)
{
	const char *at = strstr(s, head);
	size_t n = at ? strspn(at += strlen(head), "abcdefghijklmnopqrstuvwxyz-|") : 0;

	snprintf(buf, len, "%.*s", (int)n, n ? at : "");
	return buf;
}

/* an option the table does not give every transport: its help names transports */
static bool t_listed(enum opt_id id)
{
	return !opt_tr_takes(opt_defs[id].flags, OPT_TR_TCP);
}

/*
 * Every option not every transport takes: its refusal (opt_tr_refuse) and its
 * help line list exactly the transports whose rules take it, so a transport
 * that refuses it is never named as one to use instead.
 */
static void t_lists(void)
{
	for (int id = 0; id < OPT_N; id++) {
		char taking[128], line[512], err[256], in_help[128], in_err[128];

		if (!t_listed(id))
			continue;
		t_taking(id, taking, sizeof(taking));
		opt_tr_refuse(opt_defs[id].name, opt_defs[id].flags, err, sizeof(err));
		t_list(err, "--transport ", in_err, sizeof(in_err));
		t_list(t_help(id, line, sizeof(line)), "; --transport ", in_help, sizeof(in_help));
		tap_ok(&t, !strcmp(in_err, taking) && !strcmp(in_help, taking),
		       "--%s: its rules take it with --transport %s; its refusal lists %s, "
		       "its help %s", opt_defs[id].name, taking, in_err, in_help);
	}
}

int main(void)
{
	int nlisted = 0;

	for (int id = 0; id < OPT_N; id++)
		nlisted += t_listed(id);
	tap_init(&t, stdout);
	tap_plan(&t, (int)(T_N(refusals) + T_N(takes)) + NOWN + nlisted);
	t_refused(refusals, T_N(refusals));
	t_taken(takes, T_N(takes));
	t_own();
	t_lists();
	tap_totals(&t);
	return tap_exit_code(&t);
}
