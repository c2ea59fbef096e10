// SPDX-License-Identifier: MIT
/*
 * test_fiprov: the rule that refuses verbs;ofi_rxm where the verbs CQ ofi_rxm
 * makes under each endpoint is deeper than the device allows (fip_rxm_why):
 * the sizes libfabric reads from the environment, rxe's max_cqe, the reason's
 * words. Needs no RDMA device. TAP 13 on stdout.
 */
#include <stdlib.h>
#include <string.h>

#include "rdma/fiprov.h"
#include "tap/tap.h"

static struct tap T;

/* rxe's max_cqe (Linux 7.2 and 6.1) */
#define T_RXE_CQE 32767

/* fip_rxm_why's answer for rxe (NULL: "") */
static const char *t_why(bool srx)
{
	static char buf[1024];
	const char *w = fip_rxm_why("rxe0", T_RXE_CQE, srx, buf, sizeof(buf));

	if (w)
		tap_diag(&T, "%s", w);
	return w ? w : "";
}

int main(void)
{
	const char *why;

	tap_init(&T, stdout);
	tap_plan(&T, 12);
	unsetenv("FI_UNIVERSE_SIZE");
	unsetenv("FI_OFI_RXM_MSG_RX_SIZE");
	unsetenv("FI_OFI_RXM_MSG_TX_SIZE");
	tap_ok(&T, fip_rxm_cqe(false) == 262144, "defaults: (128 + 128) x 1024 = 262144 entries (%lu)",
	       fip_rxm_cqe(false));
	tap_ok(&T, fip_rxm_cqe(true) == 4096 + 131072, "shared receive context: 4096 + 128 x 1024 (%lu)",
	       fip_rxm_cqe(true));
	why = t_why(false);
	tap_ok(&T, strstr(why, "rxe0") && strstr(why, "262144") && strstr(why, "max_cqe 32767") &&
			   strstr(why, "rxm_ep_msg_cq_open"),
	       "rxe refuses the defaults, naming the device, the depth, max_cqe and where rxm asks it");
	tap_ok(&T, !fip_rxm_why("mlx5_0", 4194303, false, (char[8]){ 0 }, 8),
	       "a device with max_cqe 4194303 takes them");
	setenv("FI_UNIVERSE_SIZE", "64", 1);
	tap_ok(&T, fip_rxm_cqe(false) == 16384 && !*t_why(false),
	       "FI_UNIVERSE_SIZE=64: 16384 entries fit rxe");
	setenv("FI_UNIVERSE_SIZE", "128", 1);
	tap_ok(&T, *t_why(false), "FI_UNIVERSE_SIZE=128: 32768, one above max_cqe, refused");
	setenv("FI_UNIVERSE_SIZE", "not-a-number", 1);
	tap_ok(&T, fip_rxm_cqe(false) == 262144, "a value that is no number is the default");
	unsetenv("FI_UNIVERSE_SIZE");
	setenv("FI_OFI_RXM_MSG_RX_SIZE", "16", 1);
	setenv("FI_OFI_RXM_MSG_TX_SIZE", "16", 1);
	tap_ok(&T, fip_rxm_cqe(false) == 32768 && *t_why(false),
	       "FI_OFI_RXM_MSG_RX_SIZE and _TX_SIZE 16 in the universe of 1024: 32768, refused");
	setenv("FI_OFI_RXM_MSG_RX_SIZE", "8", 1);
	setenv("FI_OFI_RXM_MSG_TX_SIZE", "8", 1);
	tap_ok(&T, fip_rxm_cqe(false) == 16384 && !*t_why(false), "rx and tx 8: 16384 entries fit");
	unsetenv("FI_OFI_RXM_MSG_RX_SIZE");
	unsetenv("FI_OFI_RXM_MSG_TX_SIZE");
	setenv("FI_UNIVERSE_SIZE", "64", 1);
	tap_ok(&T, fip_rxm_peers() == 127 && !fip_rxm_credit_why(127, (char[8]){ 0 }, 8),
	       "FI_UNIVERSE_SIZE=64: 127 peers on one endpoint keep a send credit (%lu)",
	       fip_rxm_peers());
	why = fip_rxm_credit_why(200, (char[1024]){ 0 }, 1024);
	tap_ok(&T, why && strstr(why, "16384 entries") && strstr(why, "127 peers") &&
			   strstr(why, "put 200") && strstr(why, "vrb_ep_bind"),
	       "200 peers: the reason names the CQ, the peers that fit, the point's and vrb_ep_bind");
	setenv("FI_UNIVERSE_SIZE", "127", 1);
	tap_ok(&T, fip_rxm_peers() >= 200, "FI_UNIVERSE_SIZE=127: 200 peers fit (%lu)", fip_rxm_peers());
	unsetenv("FI_UNIVERSE_SIZE");
	tap_totals(&T);
	return tap_exit_code(&T);
}
