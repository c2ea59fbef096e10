/* SPDX-License-Identifier: MIT */
/*
 * uc: the --transport uc roles: unreliable connected QPs.
 *
 * A UC connection is an RC connection without acknowledgements: the rc/ code
 * runs it whole (endpoints, device, oob-tls setup, server models, poller),
 * with the QP type as its one parameter (struct rc_dev's qpt, from the
 * transport) and the attributes UC lacks left out of the QP state changes
 * (no retry, RNR, timeout or read/atomic depths). So --op send and --op write
 * only (opt_uc_rules: no RDMA READ or atomics). Both setups: oob-tls, and
 * rdmacm with a QP of its own beside an RC-typed id (rc_ep_cm_state).
 *
 * UC may drop a message and says nothing: no resend. A round trip whose
 * message or echo is lost never completes; the load engine's traffic
 * deadline (--timeout) ends it as "msg fail ... err=timeout", counted in the
 * client's errors (the point's "lost" figure). Nothing waits longer than that.
 *
 * May use agents/rc/ and what rc.h may use; never harness/ or tap/.
 */
#ifndef RDC_AGENTS_UC_H
#define RDC_AGENTS_UC_H

#include "agents/opts.h"

int uc_server_run(const struct ag_opts *o);
int uc_client_run(const struct ag_opts *o);

#endif
