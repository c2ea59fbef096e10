/* SPDX-License-Identifier: MIT */
/*
 * fiopt: the cross-option rules of the libfabric transports, fi-msg and
 * fi-rdm, that rdmacap and rdmacap-agent share.
 *
 * A provider builds their endpoints, so the options that shape rdmacap's own
 * verbs objects are refused, each with its row's reason (common/opt.c's nofi),
 * and the server is one event loop. Which options each fi transport takes is
 * the table's flags' alone (opt_tr_takes): the refusals here and the lists of
 * transports in other refusals and in the help cannot disagree.
 * --fi-provider's words and default are the option table's (opt_fi_*).
 *
 * Uses: common/opt.h and libc only. Errors are written into a caller's buffer.
 */
#ifndef RDC_COMMON_FIOPT_H
#define RDC_COMMON_FIOPT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/opt.h"

/*
 * The rules of the fi transports (no-op for the others): every option tr does
 * not take (opt_tr_takes) refused, with its row's reason (nofi) or else with
 * the transports that take it (opt_tr_refuse); one event-driven server thread;
 * --poll event or busy. 0, or -1 with the reason in err.
 */
int fiopt_rules(enum opt_transport tr, const bool seen[OPT_N], enum opt_model model,
		long long server_threads, enum opt_poll poll, char *err, size_t errlen);

#endif
