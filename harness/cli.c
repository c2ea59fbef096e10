// SPDX-License-Identifier: MIT
/*
 * Command line of rdmacap. One option table for every subcommand, with a mask of
 * the subcommands each option applies to, so that "rdmacap env --clients 5" is an
 * error that names the option instead of being silently ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* rdmacap's own options; those the agent also takes are O_SHARED + enum opt_id */
enum {
	O_CLIENTS = 256, O_AGENTS, O_TOPO, O_JSON, O_MAX, O_START, O_STEPS, O_BUDGET, O_RXE,
	O_RUN, O_DEEP, O_BASELINE, O_MD, O_SVG, O_THRESH, O_VERBOSE, O_HELP,
	O_SHARED,
	O_END = O_SHARED + OPT_N,
};

/* name == NULL: a shared option, named and described by opt_defs[val - O_SHARED] */
struct hp_opt {
	const char *name;
	int has_arg;
	int val;
	unsigned cmds;
	const char *arg_help;
};

#define S(id, cmds) { NULL, 0, O_SHARED + (id), cmds, NULL }
static const struct hp_opt hp_opts[] = {
	S(OPT_TRANSPORT, LOAD),
	S(OPT_CM, LOAD),
	{ "clients", 1, O_CLIENTS, LOAD, "N[,N...]" },
	{ "agents", 1, O_AGENTS, LOAD, "P" },
	S(OPT_SERVER_MODEL, LOAD),
	S(OPT_SERVER_THREADS, LOAD),
	S(OPT_CQ, LOAD),
	S(OPT_SRQ, LOAD),
	S(OPT_OP, LOAD),
	S(OPT_OOB_SESSION, LOAD),
	S(OPT_MSGS, LOAD),
	S(OPT_SIZE, LOAD),
	S(OPT_THINK_MS, LOAD),
	S(OPT_STAGGER_MS, LOAD),
	S(OPT_WORKERS, LOAD),
	S(OPT_TIMEOUT, LOAD),
	S(OPT_PORTS, LOAD),
	{ "topology", 1, O_TOPO, LOAD | B(HP_UP), "loop|pair|star:K" },
	{ "json", 1, O_JSON, LOAD | B(HP_ENV), "FILE" },
	S(OPT_TLS_CA, LOAD),
	S(OPT_TLS_CERT, LOAD),
	S(OPT_TLS_KEY, LOAD),
	{ "max", 1, O_MAX, B(HP_LIMIT), "N" },
	{ "start", 1, O_START, B(HP_LIMIT), "N" },
	{ "steps", 1, O_STEPS, B(HP_LIMIT), "S" },
	{ "budget", 1, O_BUDGET, B(HP_LIMIT), "SEC" },
	{ "threshold", 1, O_THRESH, B(HP_LIMIT), "PCT[,PCT]" },
	{ "rxe", 0, O_RXE, LOAD | B(HP_UP), NULL },
	{ "run", 1, O_RUN, B(HP_UP) | B(HP_DOWN), "ID" },
	{ "deep", 0, O_DEEP, B(HP_ENV), NULL },
	{ "baseline", 1, O_BASELINE, B(HP_REPORT), "FILE" },
	{ "md", 1, O_MD, B(HP_REPORT), "FILE" },
	{ "svg", 1, O_SVG, B(HP_REPORT), "FILE" },
	{ "verbose", 0, O_VERBOSE, ~0u, NULL },
	{ "help", 0, O_HELP, ~0u, NULL },
};
#undef S
#define HP_NOPTS (sizeof(hp_opts) / sizeof(hp_opts[0]))

/* total clients of a point, and of --max/--start; per agent, opt_defs[OPT_CLIENTS] */
#define HP_MAX_CLIENTS 10000000

static const char *hp_optname(const struct hp_opt *o)
{
	return o->name ? o->name : opt_defs[o->val - O_SHARED].name;
}

static const struct hp_opt *hp_opt_of(int val)
{
	for (size_t i = 0; i < HP_NOPTS; i++)
		if (hp_opts[i].val == val)
			return &hp_opts[i];
	return NULL;
}

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
		const struct hp_opt *o = &hp_opts[i];
		char line[192];

		if (!(o->cmds & B(c)))
			continue;
		if (!o->name) {
			opt_help_line(o->val - O_SHARED, line, sizeof(line));
			fprintf(f, "  %s\n", line);
			continue;
		}
		fprintf(f, "  --%s%s%s\n", o->name, o->arg_help ? " " : "",
			o->arg_help ? o->arg_help : "");
	}
}

static int hp_long(const char *s, long min, long max, long *out)
{
	long long v;

	if (opt_num(s, min, max, &v))
		return -1;
	*out = (long)v;
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
		if (hp_long(item, 1, HP_MAX_CLIENTS, &out[*n]))
			return -1;
		(*n)++;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static void hp_defaults(struct hp_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->transport = (enum opt_transport)opt_defs[OPT_TRANSPORT].def;
	p->cm = (enum opt_cm)opt_defs[OPT_CM].def;
	p->server_model = (enum opt_model)opt_defs[OPT_SERVER_MODEL].def;
	p->cq = (enum opt_cq)opt_defs[OPT_CQ].def;
	p->op = (enum opt_op)opt_defs[OPT_OP].def;
	p->oob_session = (enum opt_oob_session)opt_defs[OPT_OOB_SESSION].def;
	strcpy(p->topo_spec, "pair");
	p->msgs = opt_defs[OPT_MSGS].def;
	p->size = opt_defs[OPT_SIZE].def;
	p->timeout_s = opt_defs[OPT_TIMEOUT].def;
	p->server_threads = opt_defs[OPT_SERVER_THREADS].def;
	p->think_ms = opt_defs[OPT_THINK_MS].def;
	p->stagger_ms = opt_defs[OPT_STAGGER_MS].def;
	p->workers = opt_defs[OPT_WORKERS].def;
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

/* an option the agent also takes: its table parses it, the plan keeps the value */
static int hp_shared(struct hp_plan *p, enum opt_id id, const char *v, char *err, size_t len)
{
	long long x;

	if (opt_parse(id, v, &x, err, len))
		return -1;
	switch (id) {
	case OPT_TRANSPORT: p->transport = (enum opt_transport)x; break;
	case OPT_CM: p->cm = (enum opt_cm)x; break;
	case OPT_SERVER_MODEL: p->server_model = (enum opt_model)x; break;
	case OPT_CQ: p->cq = (enum opt_cq)x; break;
	case OPT_OP: p->op = (enum opt_op)x; break;
	case OPT_OOB_SESSION: p->oob_session = (enum opt_oob_session)x; break;
	case OPT_SRQ: p->srq = true; break;
	case OPT_SIZE: p->size = (long)x; break;
	case OPT_MSGS: p->msgs_set = true; p->msgs = (long)x; break;
	case OPT_TIMEOUT: p->timeout_set = true; p->timeout_s = (long)x; break;
	case OPT_SERVER_THREADS: p->server_threads = (long)x; break;
	case OPT_WORKERS: p->workers = (long)x; break;
	case OPT_PORTS: p->ports = (long)x; break;
	case OPT_THINK_MS: p->think_ms = (long)x; break;
	case OPT_STAGGER_MS: p->stagger_ms = (long)x; break;
	case OPT_TLS_CA: p->tls_ca = v; break;
	case OPT_TLS_CERT: p->tls_cert = v; break;
	case OPT_TLS_KEY: p->tls_key = v; break;
	case OPT_CLIENTS: /* rdmacap's --clients is a total: O_CLIENTS */
	case OPT_N:
		snprintf(err, len, "internal: option %d", id);
		return -1;
	}
	return 0;
}

static int hp_apply(struct hp_plan *p, int id, const char *v)
{
	switch (id) {
	case O_CLIENTS: return hp_parse_list(v, p->clients, HP_MAX_POINTS, &p->npoints);
	case O_AGENTS: return hp_long(v, 1, 100000, &p->agents);
	case O_MAX: return hp_long(v, 1, HP_MAX_CLIENTS, &p->max);
	case O_START: return hp_long(v, 1, HP_MAX_CLIENTS, &p->start);
	case O_STEPS: return hp_long(v, 1, 200, &p->steps);
	case O_BUDGET: return hp_long(v, 1, 7 * 86400, &p->budget_s);
	case O_THRESH: return hp_thresholds(v, p->thresholds);
	case O_TOPO:
		if (strlen(v) >= sizeof(p->topo_spec))
			return -1;
		strcpy(p->topo_spec, v);
		return 0;
	case O_JSON: p->json = v; return 0;
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

static int hp_fail(FILE *err, enum hp_cmd c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int hp_fail(FILE *err, enum hp_cmd c, const char *fmt, ...)
{
	va_list ap;

	fprintf(err, "rdmacap %s: ", hp_names[c]);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fprintf(err, "\nusage: %s\n", hp_usages[c]);
	return -1;
}

/* report: every input must be readable now, before any output is written */
static int hp_check_files(struct hp_plan *p, FILE *err)
{
	for (int i = 0; i <= p->nfiles; i++) {
		const char *f = i < p->nfiles ? p->files[i] : p->baseline;
		struct stat st;
		int fd;

		if (!f)
			continue;
		fd = open(f, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return hp_fail(err, p->cmd, "%s: %s", f, strerror(errno));
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return hp_fail(err, p->cmd, "%s: not a regular file", f);
		}
		close(fd);
	}
	return 0;
}

/* Every client agent gets at most what the agent's --clients allows. */
static int hp_check_per_agent(struct hp_plan *p, FILE *err)
{
	long most = p->cmd == HP_LIMIT ? p->max : 0, per;

	for (int i = 0; i < p->npoints; i++)
		most = p->clients[i] > most ? p->clients[i] : most;
	per = p->agents ? (most + p->agents - 1) / p->agents : 0;
	if (per > opt_defs[OPT_CLIENTS].max)
		return hp_fail(err, p->cmd, "--clients %ld over --agents %ld is %ld per agent "
			       "(an agent takes at most %lld)", most, p->agents, per,
			       opt_defs[OPT_CLIENTS].max);
	return 0;
}

static int hp_check(struct hp_plan *p, const bool seen[OPT_N], FILE *err)
{
	char msg[128];

	if (p->cmd == HP_REPORT)
		return hp_check_files(p, err);
	if (p->cmd == HP_UP || (LOAD & B(p->cmd))) {
		if (nn_parse(p->topo_spec, &p->topo, msg, sizeof(msg)))
			return hp_fail(err, p->cmd, "--topology: %s", msg);
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
			return hp_fail(err, p->cmd, "--stagger-ms: a storm connects at the same instant");
	}
	if (p->npoints > 1 && p->cmd != HP_RAMP)
		return hp_fail(err, p->cmd, "--clients: a list is only for ramp");
	/* the agent's own cross-option rules, so that no agent exits with a usage error */
	if (opt_rules(p->transport, seen, msg, sizeof(msg)))
		return hp_fail(err, p->cmd, "%s", msg);
	if (p->cmd == HP_LIMIT && p->start > p->max)
		return hp_fail(err, p->cmd, "--start is above --max");
	return hp_check_per_agent(p, err);
}

/* getopt rejected the word it just read: say why */
static int hp_getopt_err(struct hp_plan *p, int argc, char **argv, FILE *err)
{
	/* (argv + 1)[optind - 1] is the word getopt just rejected */
	const char *bad = optind > 1 && optind <= argc - 1 ? argv[optind] : "?";
	const struct hp_opt *o = optopt >= 256 ? hp_opt_of(optopt) : NULL;

	bool flag = o && (o->name ? !o->has_arg : opt_defs[o->val - O_SHARED].kind == OPT_FLAG);

	if (flag)
		return hp_fail(err, p->cmd, "option '--%s' takes no value", hp_optname(o));
	if (o)
		return hp_fail(err, p->cmd, "option '--%s' needs a value", hp_optname(o));
	return hp_fail(err, p->cmd, "unknown or malformed option '%s'", bad);
}

/*
 * Options and files in any order (getopt permutes). Returns 0, 1 after --help,
 * -1 after a message.
 */
static int hp_options(struct hp_plan *p, int argc, char **argv, bool seen[OPT_N], FILE *err)
{
	struct option lo[HP_NOPTS + 1];
	char msg[160];

	for (size_t i = 0; i < HP_NOPTS; i++) {
		const struct hp_opt *o = &hp_opts[i];
		const struct opt_def *d = o->name ? NULL : &opt_defs[o->val - O_SHARED];

		lo[i] = (struct option){ d ? d->name : o->name,
			d ? d->kind != OPT_FLAG : o->has_arg, NULL, o->val };
	}
	memset(&lo[HP_NOPTS], 0, sizeof(lo[0]));
	optind = 1;
	opterr = 0;
	while (1) {
		int id = getopt_long(argc - 1, argv + 1, "h", lo, NULL);
		const struct hp_opt *o;

		if (id == -1)
			return 0;
		if (id == 'h' || id == O_HELP) {
			hp_cmd_help(stdout, p->cmd);
			return 1;
		}
		if (id == '?' || id == ':')
			return hp_getopt_err(p, argc, argv, err);
		o = hp_opt_of(id);
		if (!o)
			return hp_fail(err, p->cmd, "internal option error");
		if (!(o->cmds & B(p->cmd)))
			return hp_fail(err, p->cmd, "option '--%s' does not apply to '%s'",
				       hp_optname(o), hp_names[p->cmd]);
		if (!o->name) {
			seen[id - O_SHARED] = true;
			if (hp_shared(p, id - O_SHARED, optarg, msg, sizeof(msg)))
				return hp_fail(err, p->cmd, "%s", msg);
		} else if (hp_apply(p, id, optarg)) {
			return hp_fail(err, p->cmd, "bad value '%s' for option '--%s'",
				       optarg ? optarg : "", o->name);
		}
	}
}

int hp_parse(struct hp_plan *p, int argc, char **argv, FILE *err)
{
	bool seen[OPT_N] = { 0 };
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
	c = hp_options(p, argc, argv, seen, err);
	if (c)
		return c;
	/* positional arguments (after getopt moved them last): only report takes files */
	for (int i = optind + 1; i < argc; i++) {
		if (p->cmd != HP_REPORT)
			return hp_fail(err, p->cmd, "unexpected argument '%s'", argv[i]);
		if (p->nfiles == HP_MAX_FILES)
			return hp_fail(err, p->cmd, "too many files (max %d)", HP_MAX_FILES);
		p->files[p->nfiles++] = argv[i];
	}
	if (p->cmd == HP_REPORT && !p->nfiles)
		return hp_fail(err, p->cmd, "no result file given");
	return hp_check(p, seen, err);
}
