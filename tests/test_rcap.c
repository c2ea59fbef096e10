// SPDX-License-Identifier: MIT
/*
 * test_rcap: the rule of rdma/cap's capability SKIPs (rcap_why) on filled
 * struct ibv_device_attr values: Soft-RoCE's attributes pass every need, and
 * each missing attribute makes a reason naming the device and the attribute.
 * Needs no RDMA device. TAP 13 on stdout.
 */
#include <string.h>

#include "rdma/cap.h"
#include "tap/tap.h"

static struct tap T;

/* What rxe answers ibv_query_device (Linux 7.2), for the fields the rule reads. */
static struct ibv_device_attr t_rxe(void)
{
	struct ibv_device_attr a;

	memset(&a, 0, sizeof(a));
	a.max_qp_rd_atom = 128;
	a.max_qp_init_rd_atom = 128;
	a.atomic_cap = IBV_ATOMIC_HCA;
	a.max_ah = 32767;
	return a;
}

/* rcap_why's answer (NULL: "") for attr a, transport tt, needs. */
static const char *t_why(const struct ibv_device_attr *a, enum ibv_transport_type tt, unsigned need)
{
	static char buf[160];
	const char *w = rcap_why("dev0", a, tt, need, buf, sizeof(buf));

	if (w)
		tap_diag(&T, "%s", w);
	return w ? w : "";
}

#define T_ALL (RCAP_READ | RCAP_ATOMIC | RCAP_UD | RCAP_UC | RCAP_OOB | RCAP_IMM)

int main(void)
{
	struct ibv_device_attr a = t_rxe();

	tap_init(&T, stdout);
	tap_plan(&T, 13);
	tap_ok(&T, !*t_why(&a, IBV_TRANSPORT_IB, T_ALL), "rxe's attributes offer every need");
	tap_ok(&T, !*t_why(&a, IBV_TRANSPORT_IWARP, RCAP_READ),
	       "iWARP with read resources offers --op read");

	a.atomic_cap = IBV_ATOMIC_NONE;
	tap_ok(&T,
	       !strcmp(t_why(&a, IBV_TRANSPORT_IB, RCAP_ATOMIC),
		       "device dev0: atomic_cap IBV_ATOMIC_NONE (--op atomic)"),
	       "atomic_cap NONE: --op atomic skips, device and attribute named");
	tap_ok(&T, !*t_why(&a, IBV_TRANSPORT_IB, RCAP_READ | RCAP_UD),
	       "atomic_cap NONE does not stop read or ud");

	a = t_rxe();
	a.max_qp_rd_atom = 0;
	tap_ok(&T,
	       !strcmp(t_why(&a, IBV_TRANSPORT_IB, RCAP_READ),
		       "device dev0: max_qp_rd_atom 0 (--op read)"),
	       "max_qp_rd_atom 0: --op read skips");
	tap_ok(&T,
	       strstr(t_why(&a, IBV_TRANSPORT_IB, RCAP_ATOMIC), "max_qp_rd_atom 0 (--op atomic)") !=
		       NULL,
	       "max_qp_rd_atom 0: --op atomic skips too (an atomic is a read at the responder)");

	a = t_rxe();
	a.max_qp_init_rd_atom = 0;
	tap_ok(&T, strstr(t_why(&a, IBV_TRANSPORT_IB, RCAP_READ), "max_qp_init_rd_atom 0") != NULL,
	       "max_qp_init_rd_atom 0: --op read skips");

	a = t_rxe();
	a.max_ah = 0;
	tap_ok(&T,
	       !strcmp(t_why(&a, IBV_TRANSPORT_IB, RCAP_UD),
		       "device dev0: max_ah 0 (--transport ud needs address handles)") &&
		       !*t_why(&a, IBV_TRANSPORT_IB, RCAP_UC | RCAP_READ),
	       "max_ah 0: ud skips, uc and read do not");

	a = t_rxe();
	tap_ok(&T,
	       !strcmp(t_why(&a, IBV_TRANSPORT_IWARP, RCAP_UC),
		       "device dev0: transport iWARP has no UC QPs") &&
		       strstr(t_why(&a, IBV_TRANSPORT_IWARP, RCAP_UD), "iWARP has no UD QPs"),
	       "iWARP: uc and ud skip, the transport named");
	tap_ok(&T,
	       !strcmp(t_why(&a, IBV_TRANSPORT_IWARP, RCAP_OOB | RCAP_READ),
		       "device dev0: transport iWARP connects QPs only through rdma_cm "
		       "(--cm oob-tls)") &&
		       !*t_why(&a, IBV_TRANSPORT_IB, RCAP_OOB),
	       "iWARP: oob-tls refused, the transport named; IB/RoCE take it");
	/* siw reports atomic_cap NONE; a device claiming more is still iWARP */
	tap_ok(&T,
	       !strcmp(t_why(&a, IBV_TRANSPORT_IWARP, RCAP_ATOMIC),
		       "device dev0: transport iWARP has no atomics (--op atomic)"),
	       "iWARP: atomics refused by transport, whatever atomic_cap says");
	tap_ok(&T,
	       !strcmp(t_why(&a, IBV_TRANSPORT_IWARP, RCAP_IMM | RCAP_READ),
		       "device dev0: transport iWARP has no SEND with immediate "
		       "(--qp-share with --op send)") &&
		       !*t_why(&a, IBV_TRANSPORT_IB, RCAP_IMM),
	       "iWARP: a shared QP's SEND refused (no immediate); IB/RoCE take it");
	tap_ok(&T, strstr(t_why(&a, IBV_TRANSPORT_IWARP, RCAP_UD | RCAP_OOB), "no UD QPs") != NULL,
	       "iWARP: ud over oob-tls names the missing QP type first");
	tap_totals(&T);
	return tap_exit_code(&T);
}
