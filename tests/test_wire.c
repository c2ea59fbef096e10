// SPDX-License-Identifier: MIT
/*
 * Unit tests of harness/sample/wire.h: the text made from the port counters' deltas.
 * The cause names what moved (RNR NAKs, retry exceeded, ...) with its count and
 * meaning, reads mlx5's names when rxe's are not offered, says nothing when no
 * error counter moved or the readings are not valid; the diagnostics line keeps
 * sent/rcvd packets always and other counters only when they moved. Send
 * errors are named by the call that failed and, with the link up, by a queue
 * that refused the packet; with it down, by the link.
 */
#include <stdio.h>
#include <string.h>

#include "harness/sample/wire.h"
#include "tap/tap.h"

static struct tap t;

static void t_names(struct smp_wire_names *nm, const char *const *names)
{
	memset(nm, 0, sizeof(*nm));
	for (; *names; names++)
		snprintf(nm->name[nm->n++], sizeof(nm->name[0]), "%s", *names);
}

static const char *const rxe[] = { "sent_pkts", "rcvd_pkts", "duplicate_request",
				    "rcvd_rnr_err", "retry_exceeded_err", "link_downed", NULL };

static void t_num(void)
{
	char b[32];

	tap_ok(&t, !strcmp(wire_num(0, b, sizeof(b)), "0") &&
		   !strcmp(wire_num(999, b, sizeof(b)), "999") &&
		   !strcmp(wire_num(1234, b, sizeof(b)), "1,234") &&
		   !strcmp(wire_num(1234567, b, sizeof(b)), "1,234,567"),
	       "wire_num groups thousands (last: %s)", b);
}

static void t_diag(void)
{
	struct smp_wire_names nm;
	uint64_t base[SMP_NWIRE] = { 100, 100, 5, 0, 0, 0 }, now[SMP_NWIRE] = { 500, 480, 5, 3, 0, 0 };
	char out[256];
	int64_t d = 0;

	t_names(&nm, rxe);
	wire_diag(&nm, now, base, out, sizeof(out));
	tap_ok(&t, !strcmp(out, "sent_pkts=400 rcvd_pkts=380 rcvd_rnr_err=3"),
	       "diag: packets always, the rest when moved: %s", out);
	wire_diag(&nm, base, base, out, sizeof(out));
	tap_ok(&t, !strcmp(out, "sent_pkts=0 rcvd_pkts=0"), "diag of a quiet port: %s", out);
	tap_ok(&t, wire_delta(&nm, now, base, "sent_pkts", &d) && d == 400 &&
		   !wire_delta(&nm, now, base, "out_of_buffer", &d),
	       "delta by name; a counter not offered is absent, not 0");
}

static void t_cause(void)
{
	struct smp_wire_names nm;
	struct smp_wire b = { .valid = true }, n = { .valid = true };
	char out[512];
	size_t l;

	t_names(&nm, rxe);
	n.srv[0] = 1000;
	l = wire_cause(&nm, &n, &b, -1, NULL, out, sizeof(out));
	tap_ok(&t, l == 0 && !out[0], "no error counter moved: no cause");

	n.srv[3] = 1000, n.cli[3] = 234; /* RNR NAKs seen by both sides' requesters */
	n.cli[4] = 37;
	wire_cause(&nm, &n, &b, 37, NULL, out, sizeof(out));
	tap_ok(&t, !strcmp(out, "RNR NAKs: 1,234 (receive queue ran dry: the receiver had no "
				"receive posted); retry exceeded on 37 QPs (transport retries, link "
				"loss); 37 of the run's QPs in ERR"),
	       "RNR and retry exceeded, summed over sides: %s", out);
	tap_ok(&t, wire_rnr(&nm, &n, &b) && !wire_rnr(&nm, &b, &b),
	       "RNR NAKs moved: a receive queue ran dry");
	wire_cause(&nm, &n, &b, -1, "rx depth 1, SRQ", out, sizeof(out));
	tap_ok(&t, !strncmp(out, "RNR NAKs: 1,234 (receive queue ran dry: the receiver had no "
				 "receive posted; rx depth 1, SRQ); retry exceeded", 108),
	       "the rx depth ends the RNR account: %s", out);

	n.valid = false;
	tap_ok(&t, !wire_cause(&nm, &n, &b, -1, NULL, out, sizeof(out)) && !out[0],
	       "an invalid reading gives no cause");

	{
		static const char *const mlx5[] = { "out_of_buffer", "local_ack_timeout_err", NULL };
		struct smp_wire b5 = { .valid = true }, n5 = { .valid = true };

		t_names(&nm, mlx5);
		n5.srv[0] = 12, n5.srv[1] = 2;
		wire_cause(&nm, &n5, &b5, -1, NULL, out, sizeof(out));
		tap_ok(&t, strstr(out, "RNR NAKs: 12") && strstr(out, "retry exceeded on 2 QPs") &&
			   !strstr(out, "in ERR"),
		       "mlx5's names read when rxe's are not offered: %s", out);
	}
	t_names(&nm, rxe);
	n.valid = true;
	l = wire_cause(&nm, &n, &b, -1, NULL, out, 40);
	tap_ok(&t, l == strlen(out) && l < 40, "a short buffer truncates safely (%zu)", l);
}

static void t_send_err(void)
{
	static const char *const names[] = { "sent_pkts", "send_err", "link_downed", NULL };
	struct smp_wire_names nm;
	struct smp_wire b = { .valid = true }, n = { .valid = true };
	char out[512];

	t_names(&nm, names);
	n.srv[1] = 270;
	wire_cause(&nm, &n, &b, -1, NULL, out, sizeof(out));
	tap_ok(&t, !strncmp(out, "send errors: 270 (ip_local_out in rxe_xmit_packet returned a "
				 "drop with the link up: a queue on the way out refused", 104) &&
		   strstr(out, "rxe fails the QP of a request") && !strstr(out, "link down"),
	       "send errors, link up: a queue refused the packet: %s", out);
	n.cli[2] = 1;
	wire_cause(&nm, &n, &b, -1, NULL, out, sizeof(out));
	tap_ok(&t, strstr(out, "send errors: 270 (ip_local_out in rxe_xmit_packet failed with "
			       "the link down;") && strstr(out, "; link down 1 times"),
	       "send errors, link down: the link: %s", out);
}

int main(void)
{
	tap_init(&t, stdout);
	tap_plan(&t, 13);
	t_num();
	t_diag();
	t_cause();
	t_send_err();
	tap_totals(&t);
	return tap_exit_code(&t);
}
