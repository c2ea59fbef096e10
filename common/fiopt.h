/* SPDX-License-Identifier: MIT */
/*
 * fiopt: the cross-option rules of the libfabric transports, fi-msg and
 * fi-rdm, that rdmacap and rdmacap-agent share.
 *
 * A provider builds their endpoints, so the options that shape rdmacap's own
 * verbs objects are refused, each with its row's reason (common/opt.c's nofi),
 * and the server is one event loop. --fi-provider's words and default are the
 * option table's (common/opt.h, opt_fi_*).
 *
 * Uses: common/opt.h and libc only. Errors are written into a caller's buffer.
 */
#ifndef RDC_COMMON_FIOPT_H
#define RDC_COMMON_FIOPT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/opt.h"

/*
 * The rules of the fi transports (no-op for the others): every option marked
 * OPT_F_RC or OPT_F_UD_ONLY and not OPT_F_FI refused with its row's reason;
 * --srq with fi-rdm only; one event-driven server thread; --poll event or busy.
 * 0, or -1 with the reason in err.
 */
int fiopt_rules(enum opt_transport tr, const bool seen[OPT_N], enum opt_model model,
		long long server_threads, enum opt_poll poll, char *err, size_t errlen);

#endif
