// SPDX-License-Identifier: MIT
/*
 * test_rsiw: rdma/siw's plug against libsiw's mmap key collision, without a
 * device: siw is told by its vendor id, and the plug's ring reaches past the
 * key libsiw takes for a failure. TAP 13 on stdout.
 */
#include <string.h>

#include <rdma/siw-abi.h>

#include "rdma/siw.h"
#include "tap/tap.h"

static struct tap T;

int main(void)
{
	struct ibv_device_attr a;
	struct ibv_cq *cq = (struct ibv_cq *)&a;
	char buf[120] = "";
	long ring = (long)rsiw_plug_cqe() * (long)sizeof(struct siw_cqe);

	tap_init(&T, stdout);
	tap_plan(&T, 4);
	memset(&a, 0, sizeof(a));
	a.vendor_id = RSIW_VENDOR_ID;
	tap_ok(&T, rsiw_is(&a), "vendor id 0x626d74 is siw");
	a.vendor_id = 0x0002c9;
	tap_ok(&T, !rsiw_is(&a), "another vendor id is not");
	tap_ok(&T,
	       ring > (long)SIW_INVAL_UOBJ_KEY &&
		       ring - (long)sizeof(struct siw_cqe) <= (long)SIW_INVAL_UOBJ_KEY,
	       "the plug's ring reaches just past the key 0x%x (%d entries)", SIW_INVAL_UOBJ_KEY,
	       rsiw_plug_cqe());
	tap_ok(&T, !rsiw_plug(NULL, &a, &cq, buf, sizeof(buf)) && !cq && !*buf,
	       "no plug, and no device touched, on another vendor's device");
	tap_totals(&T);
	return tap_exit_code(&T);
}
