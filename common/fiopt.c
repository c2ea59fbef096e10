// SPDX-License-Identifier: MIT
/*
 * The rules of fi-msg and fi-rdm (see fiopt.h): the options the table does not
 * give them refused with their rows' reasons, then the server's and the poll's.
 */
#include <stdio.h>

#include "common/fiopt.h"

int fiopt_rules(enum opt_transport tr, const bool seen[OPT_N], enum opt_model model,
		long long server_threads, enum opt_poll poll, char *err, size_t errlen)
{
	const char *t = opt_word(OPT_TRANSPORT, tr);

	if (!opt_tr_fi(tr))
		return 0;
	for (int i = 0; i < OPT_N; i++) {
		const struct opt_def *d = &opt_defs[i];

		if (!seen[i] || opt_tr_takes(d->flags, tr))
			continue;
		/* not a verbs choice (nvmf's own): named with the transports that take it */
		if (!d->nofi)
			return opt_tr_refuse(d->name, d->flags, err, errlen);
		snprintf(err, errlen, "--%s does not apply to --transport %s: %s", d->name, t,
			 d->nofi);
		return -1;
	}
	if (model != OPT_MODEL_EVENT || server_threads > 1) {
		snprintf(err, errlen, "--transport %s serves from one event loop (--server-model "
			 "event, --server-threads 1): its EQ and CQs are the loop's", t);
		return -1;
	}
	if (poll == OPT_POLL_ADAPTIVE) {
		snprintf(err, errlen, "--poll adaptive is verbs' (it arms a completion channel); "
			 "--transport %s takes --poll event (FI_WAIT_FD) or busy", t);
		return -1;
	}
	return 0;
}
