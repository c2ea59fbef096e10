// SPDX-License-Identifier: MIT
/*
 * Help, man page text and bash completion, all printed from the option tables.
 */
#include <stdarg.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/usage.h"

static const char *const usage_groups[HG_N] = {
	[HG_LOAD] = "load", [HG_TOPO] = "topology", [HG_TRANSPORT] = "transport",
	[HG_LIMIT] = "limit search", [HG_INPUT] = "input", [HG_OUTPUT] = "output",
	[HG_GENERAL] = "general",
};

static const char *const usage_about[HP_NCMD] = {
	[HP_ENV] = "every fact a later SKIP or cause refers to: kernel, limits, RDMA devices",
	[HP_UP] = "bring a topology of namespaces (and rxe links) up, and leave it",
	[HP_DOWN] = "remove a run's namespaces, links and rxe devices (all rdc* without --run)",
	[HP_RUN] = "one load point: N clients connect and exchange round trips; the verdict "
		   "says how many made it, and why not",
	[HP_RAMP] = "one load point per --clients value, in order",
	[HP_LIMIT] = "double --clients from --start until a point misses the threshold, then "
		     "bisect: the largest N at each threshold, and the cause",
	[HP_STORM] = "every client connects at the same instant; the first message measures it",
	[HP_REPORT] = "a Markdown table and an SVG chart from result files",
};

static const char *const usage_examples[HP_NCMD] = {
	[HP_ENV] = "rdmacap env --json env.json",
	[HP_UP] = "sudo rdmacap up --topology star:4 --rxe",
	[HP_DOWN] = "sudo rdmacap down",
	[HP_RUN] = "sudo rdmacap run --transport rc --clients 200 --json run.json",
	[HP_RAMP] = "sudo rdmacap ramp --transport tcp --topology star:4 --clients 10,100,1000",
	[HP_LIMIT] = "sudo rdmacap limit --transport rc --start 100 --max 5000 --json limit.json",
	[HP_STORM] = "sudo rdmacap storm --transport rc --cm rdmacm --clients 500",
	[HP_REPORT] = "rdmacap report --md report.md --svg report.svg run.json",
};

void usage_usage(FILE *f)
{
	fprintf(f, "usage: rdmacap COMMAND [OPTIONS]   (rdmacap COMMAND --help for its options)\n");
	for (int i = 0; i < HP_NCMD; i++)
		fprintf(f, "  %s\n", hp_usages[i]);
}

int usage_fail(FILE *f, enum hp_cmd c, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "rdmacap %s: ", hp_names[c]);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fprintf(f, "\nusage: %s\n", hp_usages[c]);
	return -1;
}

static void usage_opt_line(const struct hp_opt *o, enum hp_cmd c, char *buf, size_t len)
{
	char limits[48];

	if (!o->name) {
		opt_help_line_def(o->val - HP_O_SHARED, o->def, buf, len);
		return;
	}
	snprintf(limits, sizeof(limits), "%ld..%ld", o->min, o->max);
	opt_help_row(buf, len, o->name, o->arg, o->help, o->max ? limits : NULL,
		     c == HP_RAMP && o->val == HP_O_CLIENTS ? hp_ramp_clients : o->def);
}

/* the options of command c, by group; head prints before the first of a group */
static void usage_opts(FILE *f, enum hp_cmd c, const char *head_fmt)
{
	for (int g = 0; g < HG_N; g++) {
		bool head = false;

		for (size_t i = 0; i < hp_nopts; i++) {
			const struct hp_opt *o = &hp_opts[i];
			char line[320];

			if (o->group != (enum hp_group)g || !(o->cmds & HP_B(c)))
				continue;
			if (!head)
				fprintf(f, head_fmt, usage_groups[g]);
			head = true;
			usage_opt_line(o, c, line, sizeof(line));
			fprintf(f, "  %s\n", line);
		}
	}
}

void usage_cmd_help(FILE *f, enum hp_cmd c)
{
	fprintf(f, "usage: %s\n%s.\n", hp_usages[c], usage_about[c]);
	usage_opts(f, c, "\n%s:\n");
	fprintf(f, "\nexample:\n  %s\n", usage_examples[c]);
}

/*
 * help2man's input: "Name:" lines at column 0 become sections, indented
 * "--opt  text" lines become tagged paragraphs.
 */
static void usage_help_all(FILE *f)
{
	fprintf(f, "Usage: rdmacap COMMAND [OPTIONS]\n"
		"Find how many RDMA connections this host sustains, and name why it stops.\n"
		"TAP on stdout, logs on stderr, JSON in a side file. Exit 0 pass, 1 fail,\n"
		"2 bad command line (nothing created), 4 skipped.\n\nCommands:\n");
	for (int c = 0; c < HP_NCMD; c++)
		fprintf(f, "  %-8s%s\n", hp_names[c], usage_about[c]);
	for (int c = 0; c < HP_NCMD; c++) {
		fprintf(f, "\n%s:\n  %s\n", hp_names[c], hp_usages[c]);
		usage_opts(f, c, " %s:\n");
	}
	fprintf(f, "\nExamples:\n");
	for (int c = 0; c < HP_NCMD; c++)
		fprintf(f, "  %s\n", usage_examples[c]);
}

/* `--opt) COMPREPLY=(...); return ;;` for an option's value */
static void usage_complete_value(FILE *f, const char *name, const struct opt_def *d,
			      const char *arg)
{
	fprintf(f, "\t--%s) ", name);
	if (d && d->kind == OPT_WORD) {
		fprintf(f, "COMPREPLY=($(compgen -W \"");
		for (int i = 0; i < d->nwords; i++)
			if (d->words[i])
				fprintf(f, "%s ", d->words[i]);
		fprintf(f, "\" -- \"$cur\"))");
	} else if ((d && d->kind == OPT_PATH) || (arg && strstr(arg, "FILE"))) {
		fprintf(f, "COMPREPLY=($(compgen -f -- \"$cur\"))");
	} else if (arg && strchr(arg, '|')) {
		/* "loop|pair|star:K": the words, a parameter left for the user */
		fprintf(f, "COMPREPLY=($(compgen -W \"");
		for (const char *p = arg; *p; p += strcspn(p, "|"), p += *p == '|')
			fprintf(f, "%.*s ", (int)strcspn(p, "|:") + (p[strcspn(p, "|:")] == ':'),
				p);
		fprintf(f, "\" -- \"$cur\"))");
	} else {
		fprintf(f, "COMPREPLY=()");	/* a number or an id: nothing to offer */
	}
	fprintf(f, "; return ;;\n");
}

static void usage_completion(FILE *f)
{
	fprintf(f, "# bash completion for rdmacap, made by `rdmacap --bash-completion` "
		"from its option tables\n_rdmacap()\n{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts=\n"
		"\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"");
	for (int c = 0; c < HP_NCMD; c++)
		fprintf(f, "%s ", hp_names[c]);
	fprintf(f, "--help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $prev in\n");
	for (size_t i = 0; i < hp_nopts; i++) {
		const struct hp_opt *o = &hp_opts[i];
		const struct opt_def *d = o->name ? NULL : &opt_defs[o->val - HP_O_SHARED];

		if (hp_opt_has_arg(o))
			usage_complete_value(f, hp_optname(o), d, o->arg);
	}
	fprintf(f, "\tesac\n\tcase ${COMP_WORDS[1]} in\n");
	for (int c = 0; c < HP_NCMD; c++) {
		fprintf(f, "\t%s) opts=\"", hp_names[c]);
		for (size_t i = 0; i < hp_nopts; i++)
			if (hp_opts[i].cmds & HP_B(c))
				fprintf(f, "--%s ", hp_optname(&hp_opts[i]));
		fprintf(f, "\" ;;\n");
	}
	fprintf(f, "\tesac\n"
		"\tif [ \"${COMP_WORDS[1]}\" = report ] && [[ $cur != -* ]]; then\n"
		"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\telse\n"
		"\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n\tfi\n}\n"
		"complete -F _rdmacap rdmacap\n");
}

int usage_top(const char *word, FILE *out)
{
	if (!strcmp(word, "--help") || !strcmp(word, "-h") || !strcmp(word, "help"))
		usage_usage(out);
	else if (!strcmp(word, "--version"))
		fprintf(out, "rdmacap %s\n", RDMACAP_VERSION);
	else if (!strcmp(word, "--help-all"))
		usage_help_all(out);
	else if (!strcmp(word, "--bash-completion"))
		usage_completion(out);
	else
		return -1;
	return 0;
}
