// SPDX-License-Identifier: MIT
/*
 * test_fab: the fi-msg server's reject record (agents/fi/fab.h), made and
 * parsed, and its parser on hostile bytes: short, foreign magic, an errno out
 * of range, a call name unterminated or with other characters. TAP 13.
 */
#include <string.h>

#include "agents/fi/fab.h"
#include "tap/tap.h"

static struct tap T;

/* fab_rej_parse of r as bytes: 0 with call and err, or -1 */
static int t_parse(const struct fab_rej *r, size_t len, char *call, int *err)
{
	return fab_rej_parse(r, len, call, 24, err);
}

int main(void)
{
	struct fab_rej r;
	char call[24];
	int err = 0;

	tap_init(&T, stdout);
	tap_plan(&T, 7);
	fab_rej_make(&r, "fi_enable", 12);
	tap_ok(&T, !t_parse(&r, sizeof(r), call, &err) && !strcmp(call, "fi_enable") && err == 12,
	       "a record made is read back: the call and its errno");
	tap_ok(&T, t_parse(&r, sizeof(r) - 1, call, &err) && fab_rej_parse(NULL, 0, call, 24, &err),
	       "short or absent data: refused");
	r.magic ^= 1;
	tap_ok(&T, t_parse(&r, sizeof(r), call, &err), "foreign magic: refused");
	fab_rej_make(&r, "fi_enable", 0);
	tap_ok(&T, t_parse(&r, sizeof(r), call, &err), "errno 0: refused");
	fab_rej_make(&r, "fi_enable", 12);
	memset(r.call, 'a', sizeof(r.call));
	tap_ok(&T, t_parse(&r, sizeof(r), call, &err), "a call name without its NUL: refused");
	fab_rej_make(&r, "fi_enable;rm", 12);
	tap_ok(&T, t_parse(&r, sizeof(r), call, &err), "a call name with other characters: refused");
	fab_rej_make(&r, "fi_a_call_name_much_too_long_to_fit", 12);
	tap_ok(&T, !t_parse(&r, sizeof(r), call, &err) && strlen(call) == 23,
	       "a name too long is cut to fit: %s", call);
	tap_totals(&T);
	return tap_exit_code(&T);
}
