// SPDX-License-Identifier: MIT
/*
 * Command line of rdmacap. One option table for every subcommand, with a mask of
 * the subcommands each option applies to, so that "rdmacap env --clients 5" is an
 * error that names the option instead of being silently ignored.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "harness/plan.h"

#define B(c) (1u << (c))
#define LOAD (B(HP_RUN) | B(HP_RAMP) | B(HP_LIMIT) | B(HP_STORM))

static const char *const hp_names[HP_NCMD] = {
	[HP_ENV] = "env",   [HP_UP] = "up",       [HP_DOWN] = "down",   [HP_RUN] = "run",
	[HP_RAMP] = "ramp", [HP_LIMIT] = "limit", [HP_STORM] = "storm", [HP_REPORT] = "report",
};

static const char *const hp_usages[HP_NCMD] = {
	[HP_ENV] = "rdmacap env [--deep] [--json FILE]",
	[HP_UP] = "rdmacap up [--topology loop|pair|star:K] [--rxe] [--run ID]",
	[HP_DOWN] = "rdmacap down [--run ID]",
	[HP_RUN] = "rdmacap run [LOAD OPTIONS] [--clients N]",
	[HP_RAMP] = "rdmacap ramp [LOAD OPTIONS] [--clients N1,N2,...]",
	[HP_LIMIT] = "rdmacap limit [LOAD OPTIONS] [--max N] [--start N] [--steps S] [--budget SEC]",
	[HP_STORM] = "rdmacap storm [LOAD OPTIONS] [--clients N]",
	[HP_REPORT] = "rdmacap report [--baseline OLD.json] [--md FILE] [--svg FILE] RUN.json...",
};

enum {
	O_TRANSPORT = 256, O_CM, O_CLIENTS, O_AGENTS, O_SMODEL, O_CQ, O_SRQ, O_MSGS, O_SIZE,
	O_THINK, O_STAGGER, O_WORKERS, O_TIMEOUT, O_TOPO, O_JSON, O_OP, O_OOB, O_TLS_CA,
	O_TLS_CERT, O_TLS_KEY, O_MAX, O_START, O_STEPS, O_BUDGET, O_RXE, O_RUN, O_DEEP,
	O_BASELINE, O_MD, O_SVG, O_SRV_THREADS, O_PORTS, O_THRESH, O_VERBOSE, O_HELP,
};

struct hp_opt {
	struct option lo;
	unsigned cmds;
	const char *arg_help;
};

static const struct hp_opt hp_opts[] = {
	{ { "transport", 1, 0, O_TRANSPORT }, LOAD, "tcp|rc" },
	{ { "cm", 1, 0, O_CM }, LOAD, "oob-tls|rdmacm" },
	{ { "clients", 1, 0, O_CLIENTS }, LOAD, "N[,N...]" },
	{ { "agents", 1, 0, O_AGENTS }, LOAD, "P" },
	{ { "server-model", 1, 0, O_SMODEL }, LOAD, "event|thread" },
	{ { "server-threads", 1, 0, O_SRV_THREADS }, LOAD, "T" },
	{ { "cq", 1, 0, O_CQ }, LOAD, "per-conn|shared" },
	{ { "srq", 0, 0, O_SRQ }, LOAD, NULL },
	{ { "op", 1, 0, O_OP }, LOAD, "send|write" },
	{ { "oob-session", 1, 0, O_OOB }, LOAD, "per-agent|per-conn" },
	{ { "msgs", 1, 0, O_MSGS }, LOAD, "M" },
	{ { "size", 1, 0, O_SIZE }, LOAD, "BYTES" },
	{ { "think-ms", 1, 0, O_THINK }, LOAD, "T" },
	{ { "stagger-ms", 1, 0, O_STAGGER }, LOAD, "D" },
	{ { "workers", 1, 0, O_WORKERS }, LOAD, "W" },
	{ { "timeout", 1, 0, O_TIMEOUT }, LOAD, "SEC" },
	{ { "ports", 1, 0, O_PORTS }, LOAD, "K" },
	{ { "topology", 1, 0, O_TOPO }, LOAD | B(HP_UP), "loop|pair|star:K" },
	{ { "json", 1, 0, O_JSON }, LOAD | B(HP_ENV), "FILE" },
	{ { "tls-ca", 1, 0, O_TLS_CA }, LOAD, "FILE" },
	{ { "tls-cert", 1, 0, O_TLS_CERT }, LOAD, "FILE" },
	{ { "tls-key", 1, 0, O_TLS_KEY }, LOAD, "FILE" },
	{ { "max", 1, 0, O_MAX }, B(HP_LIMIT), "N" },
	{ { "start", 1, 0, O_START }, B(HP_LIMIT), "N" },
	{ { "steps", 1, 0, O_STEPS }, B(HP_LIMIT), "S" },
	{ { "budget", 1, 0, O_BUDGET }, B(HP_LIMIT), "SEC" },
	{ { "threshold", 1, 0, O_THRESH }, B(HP_LIMIT), "PCT[,PCT]" },
	{ { "rxe", 0, 0, O_RXE }, LOAD | B(HP_UP), NULL },
	{ { "run", 1, 0, O_RUN }, B(HP_UP) | B(HP_DOWN), "ID" },
	{ { "deep", 0, 0, O_DEEP }, B(HP_ENV), NULL },
	{ { "baseline", 1, 0, O_BASELINE }, B(HP_REPORT), "FILE" },
	{ { "md", 1, 0, O_MD }, B(HP_REPORT), "FILE" },
	{ { "svg", 1, 0, O_SVG }, B(HP_REPORT), "FILE" },
	{ { "verbose", 0, 0, O_VERBOSE }, ~0u, NULL },
	{ { "help", 0, 0, O_HELP }, ~0u, NULL },
};
#define HP_NOPTS (sizeof(hp_opts) / sizeof(hp_opts[0]))

void hp_usage(FILE *f)
{
	fprintf(f, "usage: rdmacap COMMAND [OPTIONS]   (rdmacap COMMAND --help for its options)\n");
	for (int i = 0; i < HP_NCMD; i++)
		fprintf(f, "  %s\n", hp_usages[i]);
}

static void hp_cmd_help(FILE *f, enum hp_cmd c)
{
	fprintf(f, "usage: %s\n", hp_usages[c]);
	fprintf(f, "options:\n");
	for (size_t i = 0; i < HP_NOPTS; i++) {
		if (!(hp_opts[i].cmds & B(c)))
			continue;
		fprintf(f, "  --%s%s%s\n", hp_opts[i].lo.name, hp_opts[i].arg_help ? " " : "",
			hp_opts[i].arg_help ? hp_opts[i].arg_help : "");
	}
}

static int hp_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int hp_parse_list(const char *s, long *out, int max, int *n)
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
		if (hp_long(item, 1, 10000000, &out[*n]))
			return -1;
		(*n)++;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int hp_word(const char *v, const char *const *allowed, char *dst, size_t len)
{
	for (; *allowed; allowed++)
		if (!strcmp(v, *allowed)) {
			snprintf(dst, len, "%s", v);
			return 0;
		}
	return -1;
}

static void hp_defaults(struct hp_plan *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->transport, "tcp");
	strcpy(p->cm, "oob-tls");
	strcpy(p->server_model, "event");
	strcpy(p->cq, "per-conn");
	strcpy(p->op, "send");
	strcpy(p->oob_session, "per-agent");
	strcpy(p->topo_spec, "pair");
	p->msgs = 10;
	p->size = 64;
	p->timeout_s = 60;
	p->server_threads = 1;
	p->max = 100000;
	p->start = 10;
	p->steps = 24;
	p->budget_s = 3600;
	p->thresholds[0] = 100.0;
	p->thresholds[1] = 95.0;
}

static int hp_thresholds(const char *s, double *t)
{
	long v[2];
	int n;

	if (hp_parse_list(s, v, 2, &n) || v[0] > 100 || (n == 2 && v[1] > 100))
		return -1;
	t[0] = (double)v[0];
	t[1] = n == 2 ? (double)v[1] : t[0];
	return 0;
}

static int hp_apply(struct hp_plan *p, int id, const char *v)
{
	static const char *const transports[] = { "tcp", "rc", NULL };
	static const char *const cms[] = { "oob-tls", "rdmacm", NULL };
	static const char *const models[] = { "event", "thread", NULL };
	static const char *const cqs[] = { "per-conn", "shared", NULL };
	static const char *const ops[] = { "send", "write", NULL };
	static const char *const oobs[] = { "per-agent", "per-conn", NULL };

	switch (id) {
	case O_TRANSPORT: return hp_word(v, transports, p->transport, sizeof(p->transport));
	case O_CM: return hp_word(v, cms, p->cm, sizeof(p->cm));
	case O_SMODEL: return hp_word(v, models, p->server_model, sizeof(p->server_model));
	case O_CQ: return hp_word(v, cqs, p->cq, sizeof(p->cq));
	case O_OP: return hp_word(v, ops, p->op, sizeof(p->op));
	case O_OOB: return hp_word(v, oobs, p->oob_session, sizeof(p->oob_session));
	case O_CLIENTS: return hp_parse_list(v, p->clients, HP_MAX_POINTS, &p->npoints);
	case O_AGENTS: return hp_long(v, 1, 100000, &p->agents);
	case O_SRV_THREADS: return hp_long(v, 1, 256, &p->server_threads);
	case O_MSGS: p->msgs_set = true; return hp_long(v, 0, 100000000, &p->msgs);
	case O_SIZE: return hp_long(v, 1, 1 << 20, &p->size);
	case O_THINK: return hp_long(v, 0, 600000, &p->think_ms);
	case O_STAGGER: return hp_long(v, 0, 600000, &p->stagger_ms);
	case O_WORKERS: return hp_long(v, 0, 10000000, &p->workers);
	case O_TIMEOUT: p->timeout_set = true; return hp_long(v, 1, 86400, &p->timeout_s);
	case O_PORTS: return hp_long(v, 1, 64, &p->ports);
	case O_MAX: return hp_long(v, 1, 10000000, &p->max);
	case O_START: return hp_long(v, 1, 10000000, &p->start);
	case O_STEPS: return hp_long(v, 1, 200, &p->steps);
	case O_BUDGET: return hp_long(v, 1, 7 * 86400, &p->budget_s);
	case O_THRESH: return hp_thresholds(v, p->thresholds);
	case O_TOPO:
		if (strlen(v) >= sizeof(p->topo_spec))
			return -1;
		strcpy(p->topo_spec, v);
		return 0;
	case O_JSON: p->json = v; return 0;
	case O_TLS_CA: p->tls_ca = v; return 0;
	case O_TLS_CERT: p->tls_cert = v; return 0;
	case O_TLS_KEY: p->tls_key = v; return 0;
	case O_SRQ: p->srq = true; return 0;
	case O_RXE: p->rxe = true; return 0;
	case O_DEEP: p->deep = true; return 0;
	case O_VERBOSE: p->verbose = true; return 0;
	case O_BASELINE: p->baseline = v; return 0;
	case O_MD: p->out_md = v; return 0;
	case O_SVG: p->out_svg = v; return 0;
	case O_RUN:
		if (strlen(v) != 4 || strspn(v, "0123456789abcdef") != 4)
			return -1;
		strcpy(p->run, v);
		return 0;
	}
	return -1;
}

static int hp_fail(FILE *err, enum hp_cmd c, const char *fmt, const char *a, const char *b)
{
	fprintf(err, "rdmacap %s: ", hp_names[c]);
	fprintf(err, fmt, a, b);
	fprintf(err, "\nusage: %s\n", hp_usages[c]);
	return -1;
}

static int hp_check(struct hp_plan *p, FILE *err)
{
	char msg[128];

	if (p->cmd == HP_UP || (LOAD & B(p->cmd))) {
		if (nn_parse(p->topo_spec, &p->topo, msg, sizeof(msg)))
			return hp_fail(err, p->cmd, "--topology: %s%s", msg, "");
	}
	if (!(LOAD & B(p->cmd)))
		return 0;
	if (!p->npoints) {
		static const long ramp[] = { 10, 50, 100, 200, 300, 400, 500 };

		if (p->cmd == HP_RAMP) {
			memcpy(p->clients, ramp, sizeof(ramp));
			p->npoints = sizeof(ramp) / sizeof(ramp[0]);
		} else {
			p->clients[0] = 100;
			p->npoints = 1;
		}
	}
	if (p->cmd == HP_STORM) {
		/* a storm is measured by the first message after everyone connected */
		if (!p->msgs_set)
			p->msgs = 1;
		if (p->stagger_ms)
			return hp_fail(err, p->cmd, "--stagger-ms: a storm connects at the same instant%s%s",
				       "", "");
	}
	if (p->npoints > 1 && p->cmd != HP_RAMP)
		return hp_fail(err, p->cmd, "--clients: a list is only for ramp%s%s", "", "");
	if (!strcmp(p->transport, "tcp") && (p->srq || strcmp(p->cq, "per-conn") ||
					     strcmp(p->op, "send")))
		return hp_fail(err, p->cmd, "--srq/--cq/--op apply to --transport rc only%s%s",
			       "", "");
	if (p->cmd == HP_LIMIT && p->start > p->max)
		return hp_fail(err, p->cmd, "--start is above --max%s%s", "", "");
	if (!!p->tls_ca + !!p->tls_cert + !!p->tls_key != 0 &&
	    !(p->tls_ca && p->tls_cert && p->tls_key))
		return hp_fail(err, p->cmd, "--tls-ca, --tls-cert and --tls-key go together%s%s",
			       "", "");
	return 0;
}

int hp_parse(struct hp_plan *p, int argc, char **argv, FILE *err)
{
	struct option lo[HP_NOPTS + 1];
	int c;

	hp_defaults(p);
	if (argc < 2) {
		hp_usage(err);
		return -1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		hp_usage(stdout);
		return 1;
	}
	for (c = 0; c < HP_NCMD; c++)
		if (!strcmp(argv[1], hp_names[c]))
			break;
	if (c == HP_NCMD) {
		fprintf(err, "rdmacap: unknown command '%s'\n", argv[1]);
		hp_usage(err);
		return -1;
	}
	p->cmd = c;
	p->cmd_name = hp_names[c];

	for (size_t i = 0; i < HP_NOPTS; i++)
		lo[i] = hp_opts[i].lo;
	memset(&lo[HP_NOPTS], 0, sizeof(lo[0]));

	optind = 1;
	opterr = 0;
	while (1) {
		int idx = -1, id;
		const struct hp_opt *o;

		id = getopt_long(argc - 1, argv + 1, "+h", lo, &idx);
		if (id == -1)
			break;
		if (id == 'h' || id == O_HELP) {
			hp_cmd_help(stdout, p->cmd);
			return 1;
		}
		if (id == '?' || id == ':') {
			/* (argv + 1)[optind - 1] is the word getopt just rejected */
			const char *bad = optind > 1 && optind <= argc - 1 ? argv[optind] : "?";

			for (size_t i = 0; optopt >= 256 && i < HP_NOPTS; i++)
				if (hp_opts[i].lo.val == optopt)
					return hp_fail(err, p->cmd, "option '--%s' needs a value%s",
						       hp_opts[i].lo.name, "");
			return hp_fail(err, p->cmd, "unknown or malformed option '%s'%s", bad, "");
		}
		o = NULL;
		for (size_t i = 0; i < HP_NOPTS; i++)
			if (hp_opts[i].lo.val == id)
				o = &hp_opts[i];
		if (!o)
			return hp_fail(err, p->cmd, "internal option error%s%s", "", "");
		if (!(o->cmds & B(p->cmd)))
			return hp_fail(err, p->cmd, "option '--%s' does not apply to '%s'",
				       o->lo.name, hp_names[p->cmd]);
		if (hp_apply(p, id, optarg)) {
			return hp_fail(err, p->cmd, "bad value '%s' for option '--%s'",
				       optarg ? optarg : "", o->lo.name);
		}
	}
	/* positional arguments: only report takes files */
	for (int i = optind + 1; i < argc; i++) {
		if (p->cmd != HP_REPORT)
			return hp_fail(err, p->cmd, "unexpected argument '%s'%s", argv[i], "");
		if (p->nfiles == HP_MAX_FILES)
			return hp_fail(err, p->cmd, "too many files (max 16)%s%s", "", "");
		p->files[p->nfiles++] = argv[i];
	}
	if (p->cmd == HP_REPORT && !p->nfiles)
		return hp_fail(err, p->cmd, "no result file given%s%s", "", "");
	return hp_check(p, err);
}
