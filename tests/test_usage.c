// SPDX-License-Identifier: MIT
/*
 * Unit tests of what is generated from rdmacap's option tables (harness/cli/usage.h):
 * each command's --help lists exactly the options the parser takes for it, each
 * with a line of meaning and its default where it has one; the man pages that
 * make built beside this program (../rdmacap.1, ../rdmacap-agent.1) name every
 * option of opt_defs[] and of rdmacap's own table; the bash completion offers
 * each command's options. A new option without help, or a stale build, fails.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/cli/usage.h"
#include "tap/tap.h"

static struct tap t;

/* "--name" in text, not as the start of a longer name */
static bool t_has_opt(const char *text, const char *dash, const char *name)
{
	size_t dl = strlen(dash), nl = strlen(name);

	for (const char *p = strstr(text, dash); p; p = strstr(p + 1, dash)) {
		const char *e = p + dl + nl;

		if (!strncmp(p + dl, name, nl) && !(*e == '-' || (*e >= 'a' && *e <= 'z')) &&
		    !(*e == '\\' && e[1] == '-'))
			return true;
	}
	return false;
}

/* s as roff writes it: every '-' as "\-" */
static void t_roff(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 3 < len; s++) {
		if (*s == '-')
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n] = '\0';
}

static char *t_slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0;
	long len;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = calloc(1, (size_t)len + 1);
		if (buf)
			n = fread(buf, 1, (size_t)len, f);
		if (buf && n != (size_t)len) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static char *t_help(enum hp_cmd c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (usage_cmd_help(f, c) | fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* every option of command c in its --help, with a meaning; no other option */
static void t_cmd_help(enum hp_cmd c)
{
	char *h = t_help(c), bad[256] = "";

	for (size_t i = 0; h && i < hp_nopts; i++) {
		const struct hp_opt *o = &hp_opts[i];
		const char *name = hp_optname(o), *help = o->name ? o->help : opt_defs[o->val - HP_O_SHARED].help;
		bool in = t_has_opt(h, "\n  --", name), want = o->cmds & HP_B(c);

		if (in != want || !help || strlen(help) < 8 || (want && !strstr(h, help)))
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " --%s", name);
	}
	tap_ok(&t, h && !bad[0] && strstr(h, "example:\n  ") &&
		   (!(HP_LOAD & HP_B(c)) || strstr(h, "default")),
	       "help: rdmacap %s --help lists its options with meaning, defaults, an example%s%s",
	       hp_names[c], bad[0] ? ": wrong:" : "", bad);
	free(h);
}

static void t_man(const char *dir, const char *page, bool agent)
{
	char path[PATH_MAX + 32], miss[256] = "", r[256];
	char *man;

	snprintf(path, sizeof(path), "%s/%s", dir, page);
	man = t_slurp(path);
	for (int i = 0; man && i < OPT_N; i++)
		if (!(agent && (opt_defs[i].flags & OPT_F_ORCH)) &&
		    (t_roff(opt_defs[i].name, r, sizeof(r)), !t_has_opt(man, "\\-\\-", r)))
			snprintf(miss + strlen(miss), sizeof(miss) - strlen(miss), " --%s",
				 opt_defs[i].name);
	for (size_t i = 0; man && !agent && i < hp_nopts; i++)
		if (t_roff(hp_optname(&hp_opts[i]), r, sizeof(r)), !t_has_opt(man, "\\-\\-", r))
			snprintf(miss + strlen(miss), sizeof(miss) - strlen(miss), " --%s",
				 hp_optname(&hp_opts[i]));
	for (int c = 0; man && !agent && c < HP_NCMD; c++)
		if (t_roff(hp_usages[c], r, sizeof(r)), !strstr(man, r))
			snprintf(miss + strlen(miss), sizeof(miss) - strlen(miss), " %s", hp_names[c]);
	tap_ok(&t, man && !miss[0], "man: %s names every option of the tables%s%s", page,
	       man ? (miss[0] ? ": missing" : "") : ": unreadable, built by make", miss);
	free(man);
}

static void t_completion(const char *dir)
{
	char path[PATH_MAX + 32], bad[256] = "";
	char *sh;

	snprintf(path, sizeof(path), "%s/rdmacap.bash", dir);
	sh = t_slurp(path);
	for (int c = 0; sh && c < HP_NCMD; c++) {
		char head[32];
		const char *line, *end;

		snprintf(head, sizeof(head), "\t%s) opts=\"", hp_names[c]);
		line = strstr(sh, head);
		end = line ? strchr(line, '\n') : NULL;
		for (size_t i = 0; end && i < hp_nopts; i++) {
			char *l = strndup(line, (size_t)(end - line));
			bool in = l && t_has_opt(l, "--", hp_optname(&hp_opts[i]));

			if (in != !!(hp_opts[i].cmds & HP_B(c)))
				snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s:--%s",
					 hp_names[c], hp_optname(&hp_opts[i]));
			free(l);
		}
		if (!end)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s", hp_names[c]);
	}
	tap_ok(&t, sh && !bad[0], "completion: rdmacap.bash offers each command's options%s%s",
	       sh ? (bad[0] ? ": wrong" : "") : ": unreadable, built by make", bad);
	free(sh);
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], dir[PATH_MAX + 8];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)argc, (void)argv;
	exe[n > 0 ? n : 0] = '\0';
	/* build/tests/test_usage -> build/ */
	snprintf(dir, sizeof(dir), "%s/..", dirname(exe));
	tap_init(&t, stdout);
	tap_plan(&t, HP_NCMD + 3);
	for (int c = 0; c < HP_NCMD; c++)
		t_cmd_help(c);
	t_man(dir, "rdmacap.1", false);
	t_man(dir, "rdmacap-agent.1", true);
	t_completion(dir);
	tap_totals(&t);
	return tap_exit_code(&t);
}
