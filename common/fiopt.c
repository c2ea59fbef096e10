// SPDX-License-Identifier: MIT
/*
 * The rules of fi-msg and fi-rdm (see fiopt.h): the table's verbs options
 * refused with their rows' reasons, then the server's and the poll's.
 */
#include <stdio.h>

#include "common/fiopt.h"

int fiopt_rules(enum opt_transport tr, const bool seen[OPT_N], enum opt_model model,
		long long server_threads, enum opt_poll poll, char *err, size_t errlen)
{
	const char *t = opt_word(OPT_TRANSPORT, tr);

	if (!opt_tr_fi(tr))
		return 0;
	for (int i = 0; i < OPT_N; i++)
		if (seen[i] && (opt_defs[i].flags & (OPT_F_RC | OPT_F_UD_ONLY)) &&
		    !(opt_defs[i].flags & OPT_F_FI)) {
			snprintf(err, errlen, "--%s does not apply to --transport %s: %s",
				 opt_defs[i].name, t, opt_defs[i].nofi ? opt_defs[i].nofi :
				 "a verbs choice the provider makes beneath the endpoint");
			return -1;
		}
	if (model != OPT_MODEL_EVENT || server_threads > 1) {
		snprintf(err, errlen, "--transport %s serves from one event loop (--server-model "
			 "event, --server-threads 1): its EQ and CQs are the loop's", t);
		return -1;
	}
	/* fi-rdm's is ofi_rxm's (agents/fi/fab.c); an fi-msg endpoint has none */
	if (tr == OPT_TR_FI_MSG && seen[OPT_SRQ]) {
		snprintf(err, errlen, "--srq does not apply to --transport %s: %s", t,
			 opt_defs[OPT_SRQ].nofi);
		return -1;
	}
	if (poll == OPT_POLL_ADAPTIVE) {
		snprintf(err, errlen, "--poll adaptive is verbs' (it arms a completion channel); "
			 "--transport %s takes --poll event (FI_WAIT_FD) or busy", t);
		return -1;
	}
	return 0;
}
