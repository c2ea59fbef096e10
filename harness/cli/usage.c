// SPDX-License-Identifier: MIT
/*
 * Help, man page text and bash completion, all printed from the option tables.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
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
	[HP_UP] = "bring a topology of namespaces (and rxe links) up, and leave it (not "
		  "--topology host: there is nothing to bring up)",
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

/* own: the row's help, and "; run, ramp, storm only" when cmds is given */
static int usage_opt_line(FILE *f, const struct hp_opt *o, enum hp_cmd c, unsigned cmds)
{
	char limits[48], *help = NULL;
	size_t len = 0;
	FILE *h;
	int rc;

	if (!o->name)
		return opt_help_line(f, o->val - HP_O_SHARED, o->def);
	snprintf(limits, sizeof(limits), "%ld..%ld", o->min, o->max);
	/* the help and its commands, as long as they are */
	h = open_memstream(&help, &len);
	if (!h)
		return -1;
	fputs(o->help, h);
	for (int k = 0, n = 0; k < HP_NCMD; k++)
		if (cmds & HP_B(k))
			fprintf(h, "%s%s", n++ ? ", " : "; ", hp_names[k]);
	if (cmds)
		fputs(" only", h);
	if (fclose(h)) {
		free(help);
		return -1;
	}
	rc = opt_help_row(f, o->name, o->arg, help, o->max ? limits : NULL,
			  c == HP_RAMP && o->val == HP_O_CLIENTS ? hp_ramp_clients : o->def);
	free(help);
	return rc;
}

/* every command takes it: the man page's GENERAL OPTIONS */
static bool usage_general(const struct hp_opt *o)
{
	return o->cmds == ~0u;
}

/*
 * The man page's LOAD OPTIONS: what two load commands or more take, printed
 * once; --clients stays with each command, whose default differs for ramp.
 */
static bool usage_load(const struct hp_opt *o)
{
	return !usage_general(o) && o->val != HP_O_CLIENTS &&
	       __builtin_popcount(o->cmds & HP_LOAD) >= 2;
}

/*
 * The options of command c that pick() takes (NULL: all), by group; head
 * prints before the first of a group. 0, or -1 when f fails.
 */
static int usage_opts(FILE *f, enum hp_cmd c, bool (*pick)(const struct hp_opt *),
		      const char *head_fmt)
{
	for (int g = 0; g < HG_N; g++) {
		bool head = false;

		for (size_t i = 0; i < hp_nopts; i++) {
			const struct hp_opt *o = &hp_opts[i];

			if (o->group != (enum hp_group)g || !(o->cmds & HP_B(c)) ||
			    (pick && !pick(o)))
				continue;
			if (!head && fprintf(f, head_fmt, usage_groups[g]) < 0)
				return -1;
			head = true;
			if (usage_opt_line(f, o, c, 0))
				return -1;
		}
	}
	return 0;
}

int usage_cmd_help(FILE *f, enum hp_cmd c)
{
	if (fprintf(f, "usage: %s\n%s.\n", hp_usages[c], usage_about[c]) < 0 ||
	    usage_opts(f, c, NULL, "\n%s:\n") ||
	    fprintf(f, "\nexample:\n  %s\n", usage_examples[c]) < 0)
		return -1;
	return 0;
}

/* the options of c the man page lists under c itself */
static bool usage_own(const struct hp_opt *o)
{
	return !usage_general(o) && !usage_load(o);
}

/* a command that is not a load command: the load options it takes too, by name */
static int usage_also(FILE *f, enum hp_cmd c)
{
	const char *sep = "  Takes from the LOAD OPTIONS below: ";

	for (size_t i = 0; i < hp_nopts; i++) {
		if (!usage_load(&hp_opts[i]) || !(hp_opts[i].cmds & HP_B(c)))
			continue;
		if (fprintf(f, "%s--%s", sep, hp_optname(&hp_opts[i])) < 0)
			return -1;
		sep = ", ";
	}
	return *sep == ',' && fprintf(f, ".\n") < 0 ? -1 : 0;
}

/*
 * help2man's input: "Name:" lines at column 0 become sections, indented
 * "--opt  text" lines become tagged paragraphs. Each option is printed once:
 * the load commands' shared ones under LOAD OPTIONS, --verbose and --help
 * under GENERAL OPTIONS, the rest under their command.
 */
static int usage_help_all(FILE *f)
{
	if (fprintf(f, "Usage: rdmacap COMMAND [OPTIONS]\n"
		    "Find how many RDMA connections this host sustains, and name why it stops.\n"
		    "TAP on stdout, logs on stderr, JSON in a side file. Exit 0 pass, 1 fail,\n"
		    "2 bad command line (nothing created), 4 skipped.\n\nCommands:\n") < 0)
		return -1;
	for (int c = 0; c < HP_NCMD; c++)
		if (fprintf(f, "  %-8s%s\n", hp_names[c], usage_about[c]) < 0)
			return -1;
	/* "*Name*": a section of help2man's own, not a subsection of DESCRIPTION */
	if (fprintf(f, "\n*Commands*\n") < 0)
		return -1;
	for (int c = 0; c < HP_NCMD; c++) {
		bool load = HP_LOAD & HP_B(c);

		if (fprintf(f, "\n%s:\n  %s\n", hp_names[c], hp_usages[c]) < 0 ||
		    (load && fprintf(f, "  Takes the LOAD OPTIONS below.\n") < 0) ||
		    (!load && usage_also(f, c)) || usage_opts(f, c, usage_own, " %s:\n"))
			return -1;
	}
	if (fprintf(f, "\n*Load options*\nThe options of run, ramp, limit and storm.\n") < 0)
		return -1;
	/* the union of the load commands: each row once, its commands if not all */
	for (int g = 0; g < HG_N; g++) {
		bool head = false;

		for (size_t i = 0; i < hp_nopts; i++) {
			const struct hp_opt *o = &hp_opts[i];

			if (o->group != (enum hp_group)g || !usage_load(o))
				continue;
			if (!head && fprintf(f, " %s:\n", usage_groups[g]) < 0)
				return -1;
			head = true;
			/* its commands, when not all four take it */
			if (usage_opt_line(f, o, HP_RUN, (o->cmds & HP_LOAD) == HP_LOAD ? 0 :
					   o->cmds & HP_LOAD))
				return -1;
		}
	}
	if (fprintf(f, "\n*General options*\nThe options of every command.\n") < 0 ||
	    usage_opts(f, HP_ENV, usage_general, "") || fprintf(f, "\nExamples:\n") < 0)
		return -1;
	for (int c = 0; c < HP_NCMD; c++)
		if (fprintf(f, "  %s\n", usage_examples[c]) < 0)
			return -1;
	return 0;
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
	else if (!strcmp(word, "--help-all")) {
		if (usage_help_all(out))
			fprintf(stderr, "rdmacap: --help-all: %s\n", strerror(errno));
	}
	else if (!strcmp(word, "--bash-completion"))
		usage_completion(out);
	else
		return -1;
	return 0;
}
